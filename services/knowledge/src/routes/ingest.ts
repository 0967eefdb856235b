/**
 * Ingestion routes (spec "Knowledge"): file upload (multipart), text (multipart, urlencoded or
 * JSON), batch (JSON), and job progress. See contracts.ts for bodies and status codes.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError, invalidRequest } from '../../../shared/http/errors.js';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { BatchIngestRequest } from '../contracts.js';
import { boundaryOf, MultipartError, parseMultipart, type ParsedForm } from '../domain/multipart.js';
import type { KnowledgeContext } from './context.js';

const VIS = { type: 'string', enum: ['private', 'shared', 'restricted'] } as const;

const BATCH_SCHEMA = {
  type: 'object',
  required: ['records'],
  properties: {
    tenant_id: { type: 'string', maxLength: 256 },
    visibility_mode: VIS,
    audience_tags: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } },
    user_grants: { type: 'array', maxItems: 10_000, items: { type: 'string', maxLength: 256 } },
    owner_user_id: { type: 'string', minLength: 1, maxLength: 256 },
    confirm_tenant_wide: { type: 'boolean' },
    tags: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } },
    records: {
      type: 'array', minItems: 1, maxItems: 100_000,
      items: {
        type: 'object', required: ['title', 'content'],
        properties: { title: { type: 'string', maxLength: 2000 }, content: { type: 'string' }, metadata: { type: 'object' } },
      },
    },
  },
} as const;

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

async function ingestFailed(reply: FastifyReply, err: unknown): Promise<never> {
  if (err instanceof AppError && err.code === 'ingestion_failed') {
    await reply.code(422).send({ error: err.message, code: err.code, document_id: (err as AppError & { documentId?: string }).documentId ?? null });
  }
  throw err;
}

/** Register the ingestion routes. */
export function ingestRoutes(ctx: KnowledgeContext) {
  return async (app: FastifyInstance): Promise<void> => {
    const limit = ctx.cfg.maxUploadBytes + 1024 * 1024;
    app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: limit }, (_req, body, done) => done(null, body));
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: limit }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    app.post('/v1/knowledge/ingest', { bodyLimit: limit }, async (req, reply) => {
      const p = requirePrincipal(req);
      const f = form(req.body, req.headers['content-type']);
      const file = f.files.find((x) => x.field === 'file') ?? f.files[0];
      if (!file) throw invalidRequest('multipart field "file" is required', 'body.file');
      try {
        const r = await ctx.svc.ingestFile(p, file, f.fields.title ?? null);
        return reply.code(201).send(r);
      } catch (err) {
        return ingestFailed(reply, err);
      }
    });

    app.post('/v1/knowledge/ingest/text', { bodyLimit: limit }, async (req, reply) => {
      const p = requirePrincipal(req);
      const f = form(req.body, req.headers['content-type']);
      const content = f.fields.content ?? (f.files[0] ? f.files[0].data.toString('utf8') : undefined);
      if (typeof content !== 'string') throw invalidRequest('field "content" is required', 'body.content');
      const r = await ctx.svc.ingestText(p, f.fields.title ?? '', content);
      return reply.code(201).send(r);
    });

    app.post<{ Body: BatchIngestRequest }>('/v1/knowledge/ingest/batch', { schema: { body: BATCH_SCHEMA }, bodyLimit: Math.max(limit, 64 * 1024 * 1024) }, async (req, reply) => {
      const p = requirePrincipal(req);
      const r = await ctx.svc.ingestBatch(p, req.body);
      return reply.code(201).send(r);
    });

    app.get<{ Params: { job_id: string } }>('/v1/knowledge/jobs/:job_id', {
      schema: { params: { type: 'object', required: ['job_id'], properties: { job_id: { type: 'string', maxLength: 64 } } } },
    }, async (req) => ctx.svc.job(requirePrincipal(req), req.params.job_id));
  };
}
