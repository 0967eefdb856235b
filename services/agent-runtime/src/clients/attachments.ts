/**
 * The attachment port of chat file parts (issue 12 item 7; domain/chat/attach-files.ts), over HTTP
 * and always AS THE USER (the turn's stamped identity headers are forwarded as they came):
 * - knowledge (spec "Knowledge"): `GET /v1/knowledge/documents/{id}` (404 when absent or not
 *   visible to the user), then `GET /v1/knowledge/documents/{id}/content?format=original` for the
 *   stored upload, or `GET .../content` (the extracted text) for documents without one;
 * - sandbox (spec "Code sandbox"): `POST /sessions/{tenant_id}/{session_id}/copy` through the
 *   sandbox's own client.
 */
import { request } from 'undici';
import { SandboxClient } from '../../../sandbox/src/client.js';
import type { AttachmentPort, DocumentFailure, DocumentFile } from '../domain/ports.js';
import { FORWARDED_HEADERS } from './service-call.js';

/** Deadline of each knowledge call, ms. */
const KNOWLEDGE_TIMEOUT_MS = 30_000;

function identity(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of FORWARDED_HEADERS) if (headers[k]) out[k] = headers[k];
  return out;
}

/** The failure a non-2xx knowledge answer means. */
function failureOf(status: number, what: string): DocumentFailure {
  if (status === 404) return { failure: 'not_found', message: `${what} not found` };
  if (status === 403) return { failure: 'forbidden', message: `you may not read ${what}` };
  if (status === 413) return { failure: 'too_large', message: `${what} is too large` };
  return { failure: 'unavailable', message: `knowledge answered HTTP ${status} for ${what}` };
}

/** The document as the runtime attaches it: its fields of the knowledge detail answer. */
interface DocumentDetail { document_id: string; title: string; source_type: string; filename: string | null; mime_type: string | null; bytes: number | null }

/** Knowledge documents and sandbox copies, as the user. */
export class AttachmentClient implements AttachmentPort {
  private readonly sandbox: SandboxClient | null;

  /** @param knowledgeUrl knowledge's base URL; @param sandboxUrl the sandbox's (undefined: copies fail with a reason). */
  constructor(private readonly knowledgeUrl: string, sandboxUrl: string | undefined) {
    this.sandbox = sandboxUrl ? new SandboxClient(sandboxUrl) : null;
  }

  /** See `AttachmentPort.document`. Never throws. */
  async document(documentId: string, maxBytes: number, headers: Record<string, string>, signal?: AbortSignal): Promise<DocumentFile | DocumentFailure> {
    const what = `document ${documentId}`;
    const base = `${this.knowledgeUrl}/v1/knowledge/documents/${encodeURIComponent(documentId)}`;
    try {
      const det = await this.get(base, headers, signal);
      if (det.status !== 200) return failureOf(det.status, what);
      const d = JSON.parse(det.body.toString('utf8')) as DocumentDetail;
      if (d.bytes !== null && d.bytes > maxBytes) return { failure: 'too_large', message: `${what} is larger than ${maxBytes} bytes` };
      if (d.source_type === 'file') {
        const o = await this.get(`${base}/content?format=original`, headers, signal);
        if (o.status === 200) {
          if (o.body.length > maxBytes) return { failure: 'too_large', message: `${what} is larger than ${maxBytes} bytes` };
          return {
            document_id: documentId, filename: d.filename ?? `${documentId}.bin`, mime: d.mime_type ?? o.contentType ?? 'application/octet-stream',
            bytes: o.body.length, content_base64: o.body.toString('base64'),
          };
        }
        if (o.status !== 404) return failureOf(o.status, what);
      }
      // No stored original (text and batch documents): the extracted text.
      const t = await this.get(`${base}/content`, headers, signal);
      if (t.status !== 200) return failureOf(t.status, what);
      const text = Buffer.from((JSON.parse(t.body.toString('utf8')) as { content: string }).content ?? '', 'utf8');
      if (text.length > maxBytes) return { failure: 'too_large', message: `${what} is larger than ${maxBytes} bytes` };
      const name = d.filename ?? `${d.title || documentId}.txt`;
      return { document_id: documentId, filename: /\.[A-Za-z0-9]{1,8}$/.test(name) ? name : `${name}.txt`, mime: 'text/plain', bytes: text.length, content_base64: text.toString('base64') };
    } catch (err) {
      return { failure: 'unavailable', message: `knowledge could not be reached for ${what} (${(err as Error).message})` };
    }
  }

  /** See `AttachmentPort.copy`. Never throws. */
  async copy(tenantId: string, sessionId: string, files: Array<{ path: string; content_base64: string }>, headers: Record<string, string>, signal?: AbortSignal): Promise<string | null> {
    if (!this.sandbox) return 'the sandbox service is not configured';
    try {
      await this.sandbox.copy({ tenant_id: tenantId, session_id: sessionId }, { files: files.map((f) => ({ path: f.path, content: f.content_base64, encoding: 'base64' as const })) }, { headers, ...(signal ? { signal } : {}) });
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }

  /** GET with the user's identity; the raw body. @throws Error on connection failure, timeout or abort. */
  private async get(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<{ status: number; body: Buffer; contentType: string | null }> {
    const deadline = AbortSignal.timeout(KNOWLEDGE_TIMEOUT_MS);
    const res = await request(url, {
      method: 'GET', headers: identity(headers), signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
      headersTimeout: KNOWLEDGE_TIMEOUT_MS, bodyTimeout: KNOWLEDGE_TIMEOUT_MS,
    });
    const body = Buffer.from(await res.body.arrayBuffer());
    const ct = res.headers['content-type'];
    return { status: res.statusCode, body, contentType: typeof ct === 'string' ? ct.split(';')[0]!.trim() : null };
  }
}
