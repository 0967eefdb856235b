/**
 * The connectors' knowledge sink over HTTP (issue 18 item 3): a source file or message part is
 * uploaded with `POST /v1/knowledge/ingest` (multipart `file`; knowledge makes it a private item of
 * the caller and parses it in a fresh worker), or — plain text (Markdown, `.txt`, a message body)
 * up to `INLINE_TEXT_BYTES` — with `POST /v1/knowledge/ingest/text` (chunked in place: no parser
 * is needed, and a worker's start is most of a small file's cost), then given the connector's visibility with `PATCH
 * /v1/knowledge/documents/{id}` (never wider than the connector's); a deleted or replaced item's
 * document goes with `DELETE /v1/knowledge/documents/{id}`.
 *
 * Identity: a sync runs without a request, so each call carries a principal of the connector's
 * owner (the admin that created it; id, roles and groups recorded then), signed with the runtime's
 * principal keys as the webhook runner signs its owner's (services verify it as any stamp).
 */
import { FormData, request } from 'undici';
import { STAMP_LIFETIME_SECONDS, signStamp, type Principal } from '../../../shared/identity/principal.js';
import type { ConnectorOwner, DocumentVisibility, IngestOutcome, KnowledgeSink, SourcePart } from '../domain/connectors/ports.js';

/** Plain-text parts up to this size go to the text route (knowledge chunks texts up to 64 Ki characters in place). */
export const INLINE_TEXT_BYTES = 64 * 1024;

const PLAIN = ['.md', '.markdown', '.txt'];

/** Options of the sink. */
export interface ConnectorKnowledgeOptions {
  baseUrl: string;
  principalKeys: readonly string[];
  /** Deadline of one call, ms (default 60 000: a parse may take a while). */
  timeoutMs?: number;
  /** Send plain text to the text route (default true; false sends every part as a file — the benchmark's baseline). */
  plainTextRoute?: boolean;
}

/** `KnowledgeSink` over the knowledge service's HTTP routes. */
export class HttpConnectorKnowledge implements KnowledgeSink {
  constructor(private readonly o: ConnectorKnowledgeOptions) {}

  private headers(tenantId: string, owner: ConnectorOwner): Record<string, string> {
    const iat = Math.floor(Date.now() / 1000);
    const p: Principal = { id: owner.id, tenant_id: tenantId, roles: owner.roles, groups: owner.groups, auth_method: 'service', iat, exp: iat + STAMP_LIFETIME_SECONDS };
    return { 'x-svc-principal': signStamp(p, this.o.principalKeys), accept: 'application/json' };
  }

  private async call(method: 'POST' | 'PATCH' | 'DELETE', path: string, headers: Record<string, string>, body?: FormData | object): Promise<{ status: number; body: Record<string, unknown> }> {
    const timeout = this.o.timeoutMs ?? 60_000;
    const json = body !== undefined && !(body instanceof FormData);
    const res = await request(`${this.o.baseUrl}${path}`, {
      method, headers: json ? { ...headers, 'content-type': 'application/json' } : headers,
      body: body === undefined ? undefined : json ? JSON.stringify(body) : body as FormData,
      signal: AbortSignal.timeout(timeout), headersTimeout: timeout, bodyTimeout: timeout,
    });
    const text = await res.body.text();
    let parsed: Record<string, unknown> = {};
    try { parsed = text ? JSON.parse(text) as Record<string, unknown> : {}; } catch { /* not JSON */ }
    return { status: res.statusCode, body: parsed };
  }

  /**
   * Upload `part` and set the connector's visibility. A parse failure (422) or an unsupported
   * format (415) is an outcome with `error` (the 422's document keeps `last_error` in knowledge).
   * @throws Error when knowledge cannot be reached or refuses otherwise (after deleting a document it could not restrict).
   */
  async ingest(tenantId: string, owner: ConnectorOwner, part: SourcePart, v: DocumentVisibility): Promise<IngestOutcome> {
    const h = this.headers(tenantId, owner);
    const title = part.title.slice(0, 500) || part.filename;
    let r;
    if (this.o.plainTextRoute !== false && part.data.length <= INLINE_TEXT_BYTES && PLAIN.some((e) => part.filename.toLowerCase().endsWith(e))) {
      const content = part.data.toString('utf8');
      if (!content.trim()) return { document_id: null, error: 'the file is empty' };
      r = await this.call('POST', '/v1/knowledge/ingest/text', h, { title, content });
    } else {
      const form = new FormData();
      form.set('title', title);
      form.set('file', new Blob([part.data]), part.filename);
      r = await this.call('POST', '/v1/knowledge/ingest', h, form);
    }
    const err = typeof r.body.error === 'string' ? r.body.error : `HTTP ${r.status}`;
    if (r.status === 422) return { document_id: typeof r.body.document_id === 'string' ? r.body.document_id : null, error: err };
    if (r.status === 415 || r.status === 413 || r.status === 400) return { document_id: null, error: err };
    if (r.status !== 201 && r.status !== 202) throw new Error(`knowledge ingest answered ${r.status}: ${err}`);
    const id = String(r.body.document_id);
    if (v.visibility_mode !== 'private') {
      const body = {
        visibility_mode: v.visibility_mode, audience_tags: v.audience_tags,
        ...(v.visibility_mode === 'restricted' ? { user_grants: v.user_grants } : {}),
        ...(v.visibility_mode === 'shared' && !v.audience_tags.length ? { confirm_tenant_wide: true } : {}),
      };
      const p = await this.call('PATCH', `/v1/knowledge/documents/${encodeURIComponent(id)}`, h, body);
      if (p.status !== 200) {
        await this.remove(tenantId, owner, id).catch(() => {});
        throw new Error(`knowledge refused the connector's visibility (${p.status}): ${String(p.body.error ?? '')}`);
      }
    }
    return { document_id: id, error: null };
  }

  /** Delete a document (404 is fine). @throws Error when knowledge cannot be reached or refuses. */
  async remove(tenantId: string, owner: ConnectorOwner, documentId: string): Promise<void> {
    const r = await this.call('DELETE', `/v1/knowledge/documents/${encodeURIComponent(documentId)}`, this.headers(tenantId, owner));
    if (r.status !== 200 && r.status !== 204 && r.status !== 404) throw new Error(`knowledge delete answered ${r.status}: ${String(r.body.error ?? '')}`);
  }
}
