/**
 * The `gateway-login` plugin: the gateway's own answers to `POST /v1/auth/login` and
 * `POST /v1/auth/login/2fa` (issue 14 item 3; spec "Public auth surface", "Mobile-push second
 * factor"; DESIGN.md "Request bodies the spec leaves open"), registered as the route table's local
 * targets `login` and `login_2fa`. Both are public (no bearer) and pass the admission chain's host
 * check and per-IP rate limit like every request.
 *
 * - `login`: the password goes to auth exactly as the proxy sent it before (hop stamp, body
 *   untouched, auth's body limit); any answer but a 200 token response passes back unchanged.
 *   A 200 goes through `SecondFactorGate.afterPassword`: no second factor → the same bytes and
 *   headers as before; a second factor → 202 `{challenge_id, methods, number_match, expires_at,
 *   enrollment_url?}` and no token.
 * - `login_2fa`: body `{challenge_id, code?}` (4 KiB at most) → 202 `{status: "pending"}`, or 200 the
 *   parked token response, once, with `Cache-Control: no-store`; auth's 401 `code_invalid`,
 *   403 `challenge_denied`, 409 `challenge_used`, 410 `challenge_expired` pass through.
 */
import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import { SecondFactorGate, parseLogin2faBody } from '../domain/second-factor.js';
import { unavailable, type UpstreamProxy } from '../plugins/forward.js';

/** Options of the `gateway-login` plugin. */
export interface LoginPluginOptions {
  /** Forwards the password login to auth. */
  proxy: UpstreamProxy;
  gate: SecondFactorGate;
}

/** Headers of every answer that carries, or stands in for, tokens (RFC 6749 §5.1). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/** Answer `body` (JSON text) with `status`, not to be stored (the admission chain set the correlation id). */
function noStore(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(NO_STORE).type('application/json; charset=utf-8').send(body);
}

/** Register the `login` and `login_2fa` local targets. */
export const loginPlugin = fp<LoginPluginOptions>(async (app, { proxy, gate }) => {
  app.gatewayTargets.handle('login', async (req, reply, path) => {
    const answer = await proxy.exchange(req, 'auth', path);
    if (answer === null) return unavailable(reply);
    if (answer.statusCode === 200) {
      const ua = req.headers['user-agent'];
      const outcome = await gate.afterPassword(answer.body.toString('utf8'), { ip: req.ip, userAgent: typeof ua === 'string' ? ua : '' });
      if (outcome.kind === 'challenge') return noStore(reply, 202, JSON.stringify(outcome.answer));
    }
    return reply.code(answer.statusCode).headers(answer.headers).send(answer.body);
  });

  app.gatewayTargets.handle('login_2fa', async (req, reply) => {
    const outcome = await gate.complete(parseLogin2faBody(req.body));
    return outcome.kind === 'pending' ? noStore(reply, 202, '{"status":"pending"}') : noStore(reply, 200, outcome.bundle);
  });
}, { name: 'gateway-login', fastify: '5.x', dependencies: ['gateway-proxy'] });
