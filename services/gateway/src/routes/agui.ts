/**
 * The `gateway-agui` plugin: `POST /v1/chat/agui/stream` (spec "Chat": "The AG-UI stream is
 * produced by the gateway from the upstream stream"). After the admission chain ran (bearer,
 * stamping, `turn_started`), the runtime's `POST /v1/chat/stream` is opened with the stamped
 * headers and translated by `agui/handler.ts`. The translator (and its zod schemas) load on the
 * first AG-UI request only: they are a large share of an idle gateway's heap. A mapped body (AG-UI
 * RunAgentInput, issue 17 item 5) goes with its own content-length; approval decisions of a resumed
 * interrupt go to the runtime's `/v1/user/approvals/{id}/approve|reject` with the same stamped headers.
 *
 * Several gateways (issue 21): a paused run lives in the memory of the gateway that paused it; with
 * REDIS_URL its approval ids are announced in the shared directory (`PausedRunDirectory`), and a
 * resume reaching another gateway is forwarded there once (`x-svc-agui-forwarded`), with the caller's
 * own `Authorization`, and its answer streamed back as it comes.
 */
import { Readable } from 'node:stream';
import fp from 'fastify-plugin';
import { request } from 'undici';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callUpstream } from '../clients/upstream.js';
import { forwardedBody, type UpstreamProxy } from '../plugins/forward.js';
import type { UpstreamStream } from '../agui/handler.js';
import type { PausedRunDirectory } from '../domain/ports.js';

/** Marks a resume one gateway forwarded to another (never forwarded again). */
export const AGUI_FORWARDED_HEADER = 'x-svc-agui-forwarded';

/** Options of the `gateway-agui` plugin. */
export interface AguiPluginOptions {
  proxy: UpstreamProxy;
  /** The deployment's paused-run directory (REDIS_URL), or null with one gateway. */
  directory?: PausedRunDirectory | null;
  /** This gateway's base URL as its peers reach it (a resume is never forwarded to itself). */
  selfUrl?: () => string | null;
}

/** Response headers a forwarded resume passes back (the rest are the holder's transport's). */
const PASSED_BACK = ['content-type', 'cache-control', 'x-accel-buffering', 'x-svc-turn-id'];

/**
 * Forward `req` (a resume) to the gateway at `holder` and stream its answer into `reply`.
 * @throws when the holder cannot be reached (the caller answers as if the run were unknown).
 */
async function forwardTo(holder: string, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = forwardedBody(req) ?? Buffer.from(JSON.stringify(req.body ?? {}));
  const headers: Record<string, string> = { 'content-type': 'application/json', [AGUI_FORWARDED_HEADER]: '1', accept: 'text/event-stream' };
  if (typeof req.headers.authorization === 'string') headers['authorization'] = req.headers.authorization;
  const ac = new AbortController();
  reply.raw.once('close', () => { if (!reply.raw.writableFinished) ac.abort(); });
  const res = await request(`${holder}/v1/chat/agui/stream`, { method: 'POST', headers, body, signal: ac.signal, headersTimeout: 30_000, bodyTimeout: 0 });
  for (const name of PASSED_BACK) {
    const v = res.headers[name];
    if (typeof v === 'string') void reply.header(name, v);
  }
  await reply.code(res.statusCode).send(res.body);
}

/** Register the `agui` local target. */
export const aguiPlugin = fp<AguiPluginOptions>(async (app, opts) => {
  const { proxy, directory } = opts;
  app.gatewayTargets.handle('agui', async (req: FastifyRequest, reply: FastifyReply) => {
    const { aguiStreamHandler } = await import('../agui/handler.js');
    const headersFor = (body: Buffer | undefined): Record<string, string> => {
      const h = proxy.headers(req);
      if (body) { h['content-length'] = String(body.length); h['content-type'] = 'application/json'; }
      return h;
    };
    await aguiStreamHandler(req, reply, async (body): Promise<UpstreamStream> => {
      const call = callUpstream(proxy.pool('agent-runtime'), {
        method: 'POST', path: '/v1/chat/stream', headers: headersFor(body), body: body ?? forwardedBody(req),
      }, 0);
      reply.raw.once('close', () => { if (!reply.raw.writableFinished) call.abort(); });
      const res = await call.response;
      return { statusCode: res.statusCode, headers: res.headers, body: Buffer.isBuffer(res.body) ? Readable.from([res.body]) : res.body };
    }, {
      caller: req.gw?.identity ? `${req.gw.identity.principal.tenant_id}/${req.gw.identity.principal.id}` : null,
      ...(directory ? {
        onPaused: (ids, ttlMs) => { directory.announce(ids, ttlMs).catch((err: Error) => req.log.warn({ err: err.message }, 'a paused AG-UI run could not be announced to the other gateways')); },
        onResumed: (ids) => { directory.forget(ids).catch(() => undefined); },
        forwardResume: async (ids) => {
          if (req.headers[AGUI_FORWARDED_HEADER]) return false;
          let holder: string | null;
          try { holder = await directory.holder(ids); } catch (err) {
            req.log.warn({ err: (err as Error).message }, 'the paused-run directory is unreachable');
            return false;
          }
          if (!holder || holder === opts.selfUrl?.()) return false;
          try { await forwardTo(holder, req, reply); } catch (err) {
            req.log.warn({ err: (err as Error).message, holder }, 'the gateway holding the paused AG-UI run is unreachable');
            return false;
          }
          return true;
        },
      } : {}),
      decideApproval: async (id, approve, reason) => {
        const body = Buffer.from(JSON.stringify(reason ? { reason } : {}));
        const res = await callUpstream(proxy.pool('agent-runtime'), {
          method: 'POST', path: `/v1/user/approvals/${encodeURIComponent(id)}/${approve ? 'approve' : 'reject'}`, headers: headersFor(body), body,
        }, 1024 * 1024).response;
        const chunks: Buffer[] = [];
        if (Buffer.isBuffer(res.body)) chunks.push(res.body); else for await (const c of res.body) chunks.push(c as Buffer);
        return { statusCode: res.statusCode, body: Buffer.concat(chunks) };
      },
    });
    return reply;
  });
}, { name: 'gateway-agui', fastify: '5.x', dependencies: ['gateway-proxy'], encapsulate: true });
