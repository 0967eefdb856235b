/**
 * The UI store: zustand slices combined into one store (zustand's slices pattern). It holds UI
 * state only (sign-in status, route, drafts, sidebar search, turns in flight, the open receipt,
 * knowledge uploads in flight);
 * server data lives in `api/cache.ts`. Actions are named for what happened (`draftChanged`).
 */
import { create, type StateCreator } from 'zustand';
import type { LiveTurn } from '../chat/turn-reducer';

/** Sign-in state. */
export interface AuthSlice {
  authStatus: 'booting' | 'signedOut' | 'signedIn';
  signOutReason: string | null;
  signedIn(): void;
  signedOut(reason: string | null): void;
}

/** Client-side route (`location.pathname`). */
export interface NavSlice {
  path: string;
  /** The app moved to `path` (push; `replace` renames the current page); a push closes an open receipt. */
  navigated(path: string, opts?: { replace?: boolean }): void;
  /** The browser moved to `path` (back, forward); a different path closes an open receipt. */
  pathChanged(path: string): void;
}

/** Key of a conversation in the UI: a session id, or `new` before the server made one. */
export type ConvKey = string;
export const NEW_CONV: ConvKey = 'new';

/** Chat UI state. */
export interface ChatSlice {
  sidebarQuery: string;
  folderFilter: string | null;
  drafts: Record<ConvKey, string>;
  live: Record<ConvKey, LiveTurn[]>;
  sidebarQueryChanged(q: string): void;
  folderFilterChanged(id: string | null): void;
  draftChanged(key: ConvKey, text: string): void;
  turnStarted(key: ConvKey, t: LiveTurn): void;
  turnUpdated(localId: string, fn: (t: LiveTurn) => LiveTurn): void;
  /** The server named the session of a new conversation: move its turns under the session id. */
  sessionAssigned(from: ConvKey, sessionId: string): void;
}

/** Receipt drawer. */
export interface ReceiptSlice {
  openReceipt: string | null;
  receiptOpened(turnId: string): void;
  receiptClosed(): void;
}

/** One knowledge upload in flight (or just finished): bytes sent, then server-side indexing. */
export interface UploadItem {
  id: string;
  name: string;
  phase: 'uploading' | 'processing' | 'indexing' | 'indexed' | 'failed';
  /** Bytes sent and total while uploading (XHR upload progress). */
  sent: number;
  total: number;
  documentId: string | null;
  /** Chunks indexed and embedded so far (dense vectors follow the sparse index). */
  chunks: number;
  embedded: number;
  visibility: string;
  error: string | null;
}

/** Knowledge uploads. */
export interface KnowledgeSlice {
  uploads: UploadItem[];
  uploadStarted(u: UploadItem): void;
  uploadProgressed(id: string, patch: Partial<UploadItem>): void;
  uploadDismissed(id: string): void;
}

export type AppState = AuthSlice & NavSlice & ChatSlice & ReceiptSlice & KnowledgeSlice;

const createAuthSlice: StateCreator<AppState, [], [], AuthSlice> = (set) => ({
  authStatus: 'booting',
  signOutReason: null,
  signedIn: () => set({ authStatus: 'signedIn', signOutReason: null }),
  signedOut: (reason) => set({ authStatus: 'signedOut', signOutReason: reason, live: {}, drafts: {}, openReceipt: null, uploads: [] }),
});

const createNavSlice: StateCreator<AppState, [], [], NavSlice> = (set, get) => ({
  path: typeof location === 'undefined' ? '/' : location.pathname,
  // Leaving a page closes an open receipt (issue 13 item 7); a replace renames the page the user is on.
  navigated: (path, opts) => {
    if (path === get().path) return;
    if (opts?.replace) history.replaceState(null, '', path); else history.pushState(null, '', path);
    set(opts?.replace ? { path } : { path, openReceipt: null });
  },
  pathChanged: (path) => set((s) => (path === s.path ? { path } : { path, openReceipt: null })),
});

const createChatSlice: StateCreator<AppState, [], [], ChatSlice> = (set) => ({
  sidebarQuery: '',
  folderFilter: null,
  drafts: {},
  live: {},
  sidebarQueryChanged: (q) => set({ sidebarQuery: q }),
  folderFilterChanged: (id) => set({ folderFilter: id }),
  draftChanged: (key, text) => set((s) => ({ drafts: { ...s.drafts, [key]: text } })),
  turnStarted: (key, t) => set((s) => ({ live: { ...s.live, [key]: [...(s.live[key] ?? []), t] } })),
  turnUpdated: (localId, fn) => set((s) => {
    for (const [key, turns] of Object.entries(s.live)) {
      const i = turns.findIndex((t) => t.localId === localId);
      if (i < 0) continue;
      const next = fn(turns[i]!);
      if (next === turns[i]) return s;
      const copy = turns.slice();
      copy[i] = next;
      return { live: { ...s.live, [key]: copy } };
    }
    return s;
  }),
  sessionAssigned: (from, sessionId) => set((s) => {
    if (from === sessionId || !s.live[from]) return s;
    const live = { ...s.live, [sessionId]: [...(s.live[sessionId] ?? []), ...s.live[from]!] };
    delete live[from];
    const drafts = { ...s.drafts };
    delete drafts[from];
    return { live, drafts };
  }),
});

const createReceiptSlice: StateCreator<AppState, [], [], ReceiptSlice> = (set) => ({
  openReceipt: null,
  receiptOpened: (turnId) => set({ openReceipt: turnId }),
  receiptClosed: () => set({ openReceipt: null }),
});

const createKnowledgeSlice: StateCreator<AppState, [], [], KnowledgeSlice> = (set) => ({
  uploads: [],
  uploadStarted: (u) => set((s) => ({ uploads: [u, ...s.uploads] })),
  uploadProgressed: (id, patch) => set((s) => ({ uploads: s.uploads.map((u) => (u.id === id ? { ...u, ...patch } : u)) })),
  uploadDismissed: (id) => set((s) => ({ uploads: s.uploads.filter((u) => u.id !== id) })),
});

/** The one store. */
export const useApp = create<AppState>()((...a) => ({
  ...createAuthSlice(...a),
  ...createNavSlice(...a),
  ...createChatSlice(...a),
  ...createReceiptSlice(...a),
  ...createKnowledgeSlice(...a),
}));
