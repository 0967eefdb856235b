/**
 * Ingestion routes (spec "Knowledge"): file upload (multipart), text (multipart, urlencoded or
 * JSON), batch (JSON), and job progress. The multipart and urlencoded parsers are registered in
 * this plugin only, so other routes keep answering 415 to such bodies. Bodies and statuses:
 * contracts/ingest.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError, invalidRequest } from '../../../shared/http/errors.js';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { BatchIngestRequestSchema, BatchIngestResultSchema, IngestResultSchema, JobIdParamsSchema, JobListQuerySchema, JobListSchema, JobViewSchema, TenantQuerySchema } from '../contracts.js';
import type { Ingest } from '../domain/ingest.js';
import type { Jobs } from '../domain/jobs.js';
import { boundaryOf, MultipartError, parseMultipart, type ParsedForm } from '../domain/multipart.js';

/** Options of `ingestRoutes`. */
export interface IngestRoutesOptions {
  ingest: Ingest;
  jobs: Jobs;
  /** Largest upload, bytes (MAX_UPLOAD_BYTES); request bodies may be 1 MiB larger (multipart framing). */
  maxUploadBytes: number;
}

/** Smallest body limit of the batch route, bytes. */
const BATCH_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * The fields and files of a form body: multipart (parsed here), or urlencoded / JSON fields.
 * @throws 400 `invalid_request` for a malformed multipart body, 415 `unsupported_media_type` otherwise.
 */
function form(body: unknown, contentType: string | undefined): ParsedForm {
  const boundary = boundaryOf(contentType);
  if (boundary && Buffer.isBuffer(body)) {
    try { return parseMultipart(body, boundary); } catch (err) {
      if (err instanceof MultipartError) throw invalidRequest(err.message, 'body');
      throw err;
    }
  }
  if (body && typeof body === 'object' && !Buffer.isBuffer(body)) {
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) if (typeof v === 'string') fields[k] = v;
    return { fields, files: [] };
  }
  throw new AppError(415, 'unsupported_media_type', 'send multipart/form-data');
}

/** Register the ingestion routes. */
export const ingestRoutes: FastifyPluginAsyncTypebox<IngestRoutesOptions> = async (app, { ingest, jobs, maxUploadBytes }) => {
  const limit = maxUploadBytes + 1024 * 1024;
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: limit }, (_req, body, done) => done(null, body));
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: limit }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  /**
   * `POST /v1/knowledge/ingest`: multipart `file` (+ `title`) -> 201 `IngestResult`, or 202 while the
   * parse still runs; 422 `ingestion_failed` / `document_limit_exceeded` with `document_id`.
   */
  app.post('/v1/knowledge/ingest', { bodyLimit: limit, schema: { querystring: TenantQuerySchema, response: { 201: IngestResultSchema, 202: IngestResultSchema } } }, async (req, reply) => {
    const p = requirePrincipal(req);
    const f = form(req.body, req.headers['content-type']);
    const file = f.files.find((x) => x.field === 'file') ?? f.files[0];
    if (!file) throw invalidRequest('multipart field "file" is required', 'body.file');
    const out = await ingest.ingestFile(p, file, f.fields.title ?? null);
    return reply.code(out.pending ? 202 : 201).send(out.result);
  });

  /** `POST /v1/knowledge/ingest/text`: `title`, `content` (multipart, urlencoded or JSON) -> 201 `IngestResult` (202, 422 as above). */
  app.post('/v1/knowledge/ingest/text', { bodyLimit: limit, schema: { querystring: TenantQuerySchema, response: { 201: IngestResultSchema, 202: IngestResultSchema } } }, async (req, reply) => {
    const p = requirePrincipal(req);
    const f = form(req.body, req.headers['content-type']);
    const content = f.fields.content ?? (f.files[0] ? f.files[0].data.toString('utf8') : undefined);
    if (typeof content !== 'string') throw invalidRequest('field "content" is required', 'body.content');
    const out = await ingest.ingestText(p, f.fields.title ?? '', content);
    return reply.code(out.pending ? 202 : 201).send(out.result);
  });

  /** `POST /v1/knowledge/ingest/batch` -> 201 `BatchIngestResult`. */
  app.post('/v1/knowledge/ingest/batch', {
    bodyLimit: Math.max(limit, BATCH_BODY_LIMIT),
    schema: { body: BatchIngestRequestSchema, response: { 201: BatchIngestResultSchema } },
  }, async (req, reply) => reply.code(201).send(await ingest.ingestBatch(requirePrincipal(req), req.body)));

  /** `GET /v1/knowledge/jobs?limit=` -> 200 `{jobs}`: the caller's (an admin: the tenant's) newest jobs; 400 for a limit outside 1-200. */
  app.get('/v1/knowledge/jobs', { schema: { querystring: JobListQuerySchema, response: { 200: JobListSchema } } },
    async (req) => ({ jobs: await jobs.list(requirePrincipal(req), req.query.limit ?? 50) }));

  /** `POST /v1/knowledge/jobs/:job_id/cancel` -> 200 `JobView` + `kept` (issue 19 item 5; admins); 404 `job_not_found`, 409 `conflict`. */
  app.post('/v1/knowledge/jobs/:job_id/cancel', { schema: { params: JobIdParamsSchema } },
    async (req) => jobs.cancel(requirePrincipal(req), req.params.job_id));

  /** `GET /v1/knowledge/jobs/:job_id` -> 200 `JobView`; 404 `job_not_found`. */
  app.get('/v1/knowledge/jobs/:job_id', { schema: { params: JobIdParamsSchema, querystring: TenantQuerySchema, response: { 200: JobViewSchema } } },
    async (req) => jobs.job(requirePrincipal(req), req.params.job_id));
};
