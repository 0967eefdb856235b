/**
 * Knowledge uploads with progress (spec "Knowledge": `POST /v1/knowledge/ingest`,
 * `PATCH /v1/knowledge/documents/:id`, `GET /v1/knowledge/documents/:id`).
 *
 * The request body goes through XMLHttpRequest because fetch reports no upload progress. The file
 * route makes `private` items only (spec), so every file, PDF and Word included, is uploaded
 * privately and another visibility is then set with PATCH (the service parses the file either way).
 * Should that change fail, the document stays private (the safe side) and the upload says so. After
 * the answer, the document is polled until its vectors are in (`indexing` -> `indexed` or `failed`).
 */
import { errorOf, ApiError } from '../api/http';
import { tokens } from '../api/tokens';
import { invalidate } from '../api/cache';
import { api } from '../api/http';
import { useApp, type UploadItem } from '../store';
import type { DocumentPatchRequest, DocumentView, IngestResult, VisibilityMode } from '../api/types';

/** Visibility choices of an upload (spec visibility table). */
export interface UploadOptions {
  title: string;
  visibility: VisibilityMode;
  audienceTags: string[];
  userGrants: string[];
  /** A shared item without audiences reaches every user of the tenant; the server wants it confirmed. */
  confirmTenantWide: boolean;
}

/** Plain words for an ingestion error code. */
export function uploadMessage(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  switch (err.code) {
    case 'unsupported_format': return 'This file type is not supported. Send PDF, DOCX, HTML, Markdown, text or CSV.';
    case 'payload_too_large': return `The file is too large: ${err.message}`;
    case 'confirm_tenant_wide_required': return 'A shared document without audiences is visible to everyone in the organisation: tick the confirmation, or pick audiences.';
    case 'network_error': return 'The gateway cannot be reached.';
    default: return err.message || `Upload failed (HTTP ${err.status}).`;
  }
}

/**
 * Send `body` with XHR, reporting upload progress; bearer from the token keeper, one refresh and
 * retry on 401 (as `apiFetch`). Resolves with the JSON answer. @throws ApiError
 */
async function xhrJson<T>(url: string, body: FormData | string, onProgress: (sent: number, total: number) => void): Promise<T> {
  const once = async (): Promise<{ status: number; text: string; statusText: string }> => {
    const token = await tokens.accessToken();
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', url);
      if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
      if (typeof body === 'string') xhr.setRequestHeader('content-type', 'application/json');
      xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded, e.total); };
      xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText, statusText: xhr.statusText });
      xhr.onerror = () => reject(new ApiError(0, 'network_error', 'The gateway cannot be reached.'));
      xhr.onabort = () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.'));
      xhr.send(body);
    });
  };
  let r = await once();
  if (r.status === 401) {
    if (await tokens.refresh()) r = await once();
    if (r.status === 401) tokens.signedOut('Your session ended. Sign in again.');
  }
  if (r.status < 200 || r.status >= 300) {
    const err = await errorOf(new Response(r.text || null, { status: r.status, statusText: r.statusText, headers: { 'content-type': 'application/json' } }));
    // A parse failure (422 ingestion_failed) still made a document that keeps last_error.
    let documentId: string | null = null;
    try { documentId = (JSON.parse(r.text) as { document_id?: string | null }).document_id ?? null; } catch { /* not JSON */ }
    throw Object.assign(err, { documentId });
  }
  return (r.text ? JSON.parse(r.text) : undefined) as T;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll a document until it leaves `indexing` (about 10 minutes at most). */
async function watchDocument(uploadId: string, documentId: string): Promise<void> {
  const progressed = useApp.getState().uploadProgressed;
  for (let i = 0, wait = 400; i < 600; i++, wait = Math.min(2000, wait * 1.3)) {
    let d: DocumentView;
    try { d = await api<DocumentView>(`/v1/knowledge/documents/${encodeURIComponent(documentId)}`); } catch (err) {
      progressed(uploadId, { phase: 'failed', error: uploadMessage(err) });
      return;
    }
    progressed(uploadId, { chunks: d.chunks_indexed, embedded: d.chunks_embedded, phase: d.status, error: d.last_error });
    if (d.status !== 'indexing') { invalidate('/v1/knowledge/'); return; }
    await sleep(wait);
  }
}

let seq = 0;

/** Upload `file` with `opts`; progress goes to the store's `uploads`. Never throws (errors land on the upload). */
export async function uploadFile(file: File, opts: UploadOptions): Promise<void> {
  const id = `u${Date.now().toString(36)}${(seq++).toString(36)}`;
  const store = useApp.getState();
  const item: UploadItem = {
    id, name: opts.title.trim() || file.name, phase: 'uploading', sent: 0, total: file.size, documentId: null, chunks: 0, embedded: 0, visibility: opts.visibility, error: null,
  };
  store.uploadStarted(item);
  const progressed = store.uploadProgressed;
  const onProgress = (sent: number, total: number): void => progressed(id, { sent, total, ...(sent >= total ? { phase: 'processing' } : {}) });
  try {
    const form = new FormData();
    form.append('title', opts.title.trim());
    form.append('file', file, file.name);
    const r = await xhrJson<IngestResult>('/v1/knowledge/ingest', form, onProgress);
    progressed(id, { phase: r.status, documentId: r.document_id, chunks: r.chunks_indexed, sent: file.size, name: r.title, visibility: 'private' });
    if (opts.visibility !== 'private') {
      const body: DocumentPatchRequest = {
        visibility_mode: opts.visibility,
        audience_tags: opts.audienceTags,
        ...(opts.visibility === 'restricted' ? { user_grants: opts.userGrants } : {}),
        ...(opts.confirmTenantWide ? { confirm_tenant_wide: true } : {}),
      };
      try {
        await api(`/v1/knowledge/documents/${encodeURIComponent(r.document_id)}`, { method: 'PATCH', json: body });
      } catch (err) {
        throw Object.assign(new Error(`Uploaded as private; the visibility could not be set (${uploadMessage(err)}). Change it from the documents list.`), { documentId: r.document_id });
      }
      progressed(id, { visibility: opts.visibility });
    }
    invalidate('/v1/knowledge/');
    if (r.status === 'indexing') await watchDocument(id, r.document_id);
  } catch (err) {
    const docId = (err as { documentId?: string | null }).documentId ?? null;
    progressed(id, { phase: 'failed', error: uploadMessage(err), ...(docId ? { documentId: docId } : {}) });
    invalidate('/v1/knowledge/');
  }
}
