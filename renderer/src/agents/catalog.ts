/**
 * Shared bits of the agent, skill and MCP pages (issue 17 item 6): list answers read as `{items}` or
 * a bare array, "this route is not there yet" detection (404/501/502, the gateway's answers for a
 * surface not in this build), and the chat's chosen agent (a small zustand store, remembered in
 * localStorage; `null` = the default agent).
 */
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { ApiError } from '../api/http';
import { useQuery } from '../api/cache';

/** The items of a list answer: `{items: T[]}` or `T[]`; anything else is empty. */
export function listOf<T>(data: unknown): T[] {
  if (Array.isArray(data)) return data as T[];
  if (data && typeof data === 'object' && Array.isArray((data as { items?: unknown }).items)) return (data as { items: T[] }).items;
  return [];
}

/** True when `err` says the route is not served by this build (404 without a domain code, 501, 502). */
export function notAvailable(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.status === 501 || err.status === 502) return true;
  // A domain 404 (`agent_not_found`...) is an answer; the gateway's unknown-route 404 is not.
  return err.status === 404 && !/_not_found$/.test(err.code);
}

/**
 * `useQuery` that also reloads an entry already cached when the view mounts: catalogs change
 * elsewhere (an admin registers a server, another page adds an agent), so a page shows them fresh.
 */
export function useFreshQuery<T>(key: string | null): ReturnType<typeof useQuery<T>> {
  const q = useQuery<T>(key);
  const { refetch } = q;
  const cached = useRef(q.data !== undefined);
  useEffect(() => { if (cached.current) void refetch(); }, [refetch]);
  return q;
}

const KEY = 'svc.chat.agent';

function stored(): string | null {
  try { return localStorage.getItem(KEY); } catch { return null; }
}

/** The chat's chosen agent. */
interface AgentChoice {
  /** Agent id sent as `agent_id`, or null for the default agent (nothing sent). */
  agentId: string | null;
  /** The user picked an agent (null = default). */
  agentPicked(id: string | null): void;
}

/** Store of the chosen agent (read by `chat/actions.ts` when it builds the request). */
export const useAgentChoice = create<AgentChoice>((set) => ({
  agentId: stored(),
  agentPicked(id) {
    try { if (id) localStorage.setItem(KEY, id); else localStorage.removeItem(KEY); } catch { /* private mode: keep it in memory */ }
    set({ agentId: id });
  },
}));

/** `agent_id` to put in a chat request body: `{}` for the default agent. */
export function agentField(): { agent_id?: string } {
  const id = useAgentChoice.getState().agentId;
  return id && id !== 'default' ? { agent_id: id } : {};
}

/** The tool groups an agent may allow (pinned contract: `builtin`, `sandbox`, `knowledge`, `memory`). */
export const TOOL_GROUPS: ReadonlyArray<readonly [string, string]> = [
  ['builtin', 'Built-in tools'],
  ['sandbox', 'Code sandbox'],
  ['knowledge', 'Knowledge search'],
  ['memory', 'Memory'],
];
