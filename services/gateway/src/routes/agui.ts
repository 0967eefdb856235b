/**
 * The `gateway-agui` plugin: `POST /v1/chat/agui/stream` (spec "Chat": "The AG-UI stream is
 * produced by the gateway from the upstream stream"). After the admission chain ran (bearer,
 * stamping, `turn_started`), the runtime's `POST /v1/chat/stream` is opened with the stamped
 * headers and translated by `agui/handler.ts`. The translator (and its zod schemas) load on the
 * first AG-UI request only: they are a large share of an idle gateway's heap. A mapped body (AG-UI
 * RunAgentInput, issue 17 item 5) goes with its own content-length; approval decisions of a resumed
 * interrupt go to the runtime's `/v1/user/approvals/{id}/approve|reject` with the same stamped headers.
 */
import { Readable } from 'node:stream';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callUpstream } from '../clients/upstream.js';
import { forwardedBody, type UpstreamProxy } from '../plugins/forward.js';
import type { UpstreamStream } from '../agui/handler.js';

/** Options of the `gateway-agui` plugin. */
export interface AguiPluginOptions {
  proxy: UpstreamProxy;
}

/** Register the `agui` local target. */
export const aguiPlugin = fp<AguiPluginOptions>(async (app, opts) => {
  const { proxy } = opts;
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
