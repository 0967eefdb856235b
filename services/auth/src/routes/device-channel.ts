/**
 * The phone's device channel (issue 14 items 3 and 5; /work/2fa-brief.md "Phone routes";
 * docs/mobile-2fa.md). Public at the gateway (`/dirauth/pair/*`, no bearer): a device proof or a
 * signed answer is the credential.
 *
 * - `GET /dirauth/pair/challenges` with `X-Device-Proof` (or `?proof=`): `ChallengeList` at once;
 *   `?wait=1..25`: long poll; `Accept: text/event-stream`: server-sent events `event: challenge` /
 *   `data: <ChallengeItem>` for each pending and each new challenge, `: heartbeat` comments every
 *   15 s, and the end of the stream when the proof expires (the phone reconnects with a fresh proof).
 * - `POST /dirauth/pair/challenges/{challenge_id}/answer` `{answer}` -> `AnswerResult`.
 */
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AnswerBodySchema, AnswerResultSchema, CHANNEL_HEARTBEAT_MS, ChallengeListQuerySchema, ChallengeListSchema, ChallengeParamsSchema,
  PAIR_CHALLENGES_PATH, type ChallengeItem,
} from '../contracts.js';
import type { ChallengeAnswerService } from '../domain/challenge-answers.js';
import type { DeviceChannel } from '../domain/device-channel.js';

/** Options of `deviceChannelRoutes`. */
export interface DeviceChannelRoutesOptions {
  channel: DeviceChannel;
  answers: ChallengeAnswerService;
}

/** The request header carrying a device proof. */
export const DEVICE_PROOF_HEADER = 'x-device-proof';

const pub = { public: true } as const;

function wantsStream(req: FastifyRequest): boolean {
  return (req.headers.accept ?? '').includes('text/event-stream');
}

function sseEvent(item: ChallengeItem): string {
  return `event: challenge\ndata: ${JSON.stringify(item)}\n\n`;
}

/** Register the device channel. */
export const deviceChannelRoutes: FastifyPluginAsyncTypebox<DeviceChannelRoutesOptions> = async (app, { channel, answers }) => {
  // Open streams and long polls end when the service shuts down, so they never hold its close up.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => { for (const end of [...open]) end(); });

  app.get(PAIR_CHALLENGES_PATH, {
    config: pub, schema: { querystring: ChallengeListQuerySchema, response: { 200: ChallengeListSchema } },
  }, async (req, reply) => {
    const header = req.headers[DEVICE_PROOF_HEADER];
    const session = await channel.open((Array.isArray(header) ? header[0] : header) ?? req.query.proof);
    void reply.header('cache-control', 'no-store');
    if (wantsStream(req)) {
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no',
      });
      raw.write(': device channel open\n\n');
      let stop = (): void => {};
      const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), CHANNEL_HEARTBEAT_MS);
      const finish = (): void => { open.delete(finish); clearInterval(heartbeat); stop(); if (!raw.writableEnded) raw.end(); };
      open.add(finish);
      // The response's 'close': the phone went away (or the stream ended).
      raw.on('close', finish);
      stop = channel.watch(session, (item) => raw.write(sseEvent(item)), finish);
      return reply;
    }
    if (req.query.wait === undefined) return { items: await channel.list(session) };
    const abort = new AbortController();
    const onClose = (): void => abort.abort();
    reply.raw.on('close', onClose);
    open.add(onClose);
    try {
      return { items: await channel.wait(session, req.query.wait * 1000, abort.signal) };
    } finally {
      open.delete(onClose);
      reply.raw.off('close', onClose);
    }
  });

  app.post(`${PAIR_CHALLENGES_PATH}/:challenge_id/answer`, {
    config: pub, schema: { params: ChallengeParamsSchema, body: AnswerBodySchema, response: { 200: AnswerResultSchema } },
  }, async (req) => answers.answer(req.params.challenge_id, req.body.answer));
};
