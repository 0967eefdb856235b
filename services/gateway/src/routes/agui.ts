/**
 * The `gateway-agui` plugin: `POST /v1/chat/agui/stream` (spec "Chat": "The AG-UI stream is
 * produced by the gateway from the upstream stream"). After the admission chain ran (bearer,
 * stamping, `turn_started`), the runtime's `POST /v1/chat/stream` is opened with the stamped
 * headers and translated by `agui/handler.ts`. The translator (and its zod schemas) load on the
 * first AG-UI request only: they are a large share of an idle gateway's heap.
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
    await aguiStreamHandler(req, reply, async (body): Promise<UpstreamStream> => {
      const call = callUpstream(proxy.pool('agent-runtime'), {
        method: 'POST', path: '/v1/chat/stream', headers: proxy.headers(req), body: body ?? forwardedBody(req),
      }, 0);
      reply.raw.once('close', () => { if (!reply.raw.writableFinished) call.abort(); });
      const res = await call.response;
      return { statusCode: res.statusCode, headers: res.headers, body: Buffer.isBuffer(res.body) ? Readable.from([res.body]) : res.body };
    });
    return reply;
  });
}, { name: 'gateway-agui', fastify: '5.x', dependencies: ['gateway-proxy'], encapsulate: true });
