/**
 * Knowledge uploads with progress (spec "Knowledge": `POST /v1/knowledge/ingest`, `/ingest/batch`,
 * `GET /v1/knowledge/jobs/:id`, `GET /v1/knowledge/documents/:id`).
 *
 * The request body goes through XMLHttpRequest because fetch reports no upload progress. The file
 * route makes `private` items only, so another visibility sends the file's text through the batch
 * route (which takes visibility, audiences and grants); that works for text-like files only, since
 * the browser cannot extract PDF or DOCX text. After the answer, the document (or the batch job) is
 * polled until its vectors are in (`indexing` -> `indexed` or `failed`).
 */
import { errorOf, ApiError } from '../api/http';
import { tokens } from '../api/tokens';
import { invalidate } from '../api/cache';
import { api } from '../api/http';
import { useApp, type UploadItem } from '../store';
import type { BatchIngestRequest, BatchIngestResult, DocumentView, IngestResult, JobView, VisibilityMode } from '../api/types';

/** Visibility choices of an upload (spec visibility table). */
export interface UploadOptions {
  title: string;
  visibility: VisibilityMode;
  audienceTags: string[];
  userGrants: string[];
  /** A shared item without audiences reaches every user of the tenant; the server wants it confirmed. */
  confirmTenantWide: boolean;
}

const TEXT_EXT = /\.(md|markdown|txt|text|csv)$/i;

/** True when the browser can send the file's text through the batch route (non-private uploads). */
export function isTextLike(file: File): boolean {
  return TEXT_EXT.test(file.name) || file.type === 'text/plain' || file.type === 'text/markdown' || file.type === 'text/csv';
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

/** Poll a batch job, then its document. */
async function watchJob(uploadId: string, jobId: string, documentId: string): Promise<void> {
  const progressed = useApp.getState().uploadProgressed;
  for (let i = 0, wait = 400; i < 600; i++, wait = Math.min(2000, wait * 1.3)) {
    let j: JobView;
    try { j = await api<JobView>(`/v1/knowledge/jobs/${encodeURIComponent(jobId)}`); } catch { break; }
    progressed(uploadId, { embedded: j.chunks_embedded ?? j.done, chunks: j.chunks_total ?? j.total });
    if (j.status === 'failed') { progressed(uploadId, { phase: 'failed', error: j.error ?? 'Indexing failed.' }); return; }
    if (j.status === 'done') break;
    await sleep(wait);
  }
  await watchDocument(uploadId, documentId);
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
    if (opts.visibility === 'private') {
      const form = new FormData();
      form.append('title', opts.title.trim());
      form.append('file', file, file.name);
      const r = await xhrJson<IngestResult>('/v1/knowledge/ingest', form, onProgress);
      progressed(id, { phase: r.status, documentId: r.document_id, chunks: r.chunks_indexed, sent: file.size, name: r.title });
      invalidate('/v1/knowledge/');
      if (r.status === 'indexing') await watchDocument(id, r.document_id);
      return;
    }
    if (!isTextLike(file)) throw new Error('Only Markdown, text and CSV files can be shared at upload; upload PDF and Word files as private.');
    const body: BatchIngestRequest = {
      visibility_mode: opts.visibility,
      audience_tags: opts.audienceTags,
      ...(opts.visibility === 'restricted' ? { user_grants: opts.userGrants } : {}),
      ...(opts.confirmTenantWide ? { confirm_tenant_wide: true } : {}),
      records: [{ title: opts.title.trim() || file.name.replace(/\.[A-Za-z0-9]+$/, ''), content: await file.text(), metadata: { filename: file.name } }],
    };
    const r = await xhrJson<BatchIngestResult>('/v1/knowledge/ingest/batch', JSON.stringify(body), onProgress);
    const doc = r.documents[0];
    if (!doc) throw new Error(r.failed[0]?.error ?? 'The file held no text to index.');
    progressed(id, { phase: r.dense === 'pending' ? 'indexing' : 'indexed', documentId: doc.document_id, chunks: doc.chunks_indexed, name: doc.title });
    invalidate('/v1/knowledge/');
    if (r.dense === 'pending') await watchJob(id, r.job_id, doc.document_id);
  } catch (err) {
    const docId = (err as { documentId?: string | null }).documentId ?? null;
    progressed(id, { phase: 'failed', error: uploadMessage(err), ...(docId ? { documentId: docId } : {}) });
    invalidate('/v1/knowledge/');
  }
}
