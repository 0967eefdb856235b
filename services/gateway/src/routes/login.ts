/**
 * The `gateway-login` plugin: the gateway's own answers to `POST /v1/auth/login` and
 * `POST /v1/auth/login/2fa` (issue 14 item 3; spec "Public auth surface", "Mobile-push second
 * factor"; DESIGN.md "Request bodies the spec leaves open"), registered as the route table's local
 * targets `login` and `login_2fa`. Both are public (no bearer) and pass the admission chain's host
 * check and per-IP rate limit like every request.
 *
 * - `login`: with the embedded IdP's `svc-web-password` client configured (issue 15 item 1), a
 *   well-formed body is a `password` grant at the realm server-side (the hop stamp names the client
 *   address its throttle counts once); a local account gets realm tokens (issuer
 *   `{publicUrl}/idp/realms/svc`); the realm's errors come back as auth's `{error, code}` with auth's
 *   statuses (domain/web-password-login.ts). A directory account (`directory_account`, nothing
 *   counted), a malformed body, or no client configured: the password goes to auth exactly as the
 *   proxy sent it before (hop stamp, body untouched, auth's body limit; issuer `{publicUrl}/auth`);
 *   any answer but a 200 token response passes back unchanged. Tokens of either path go through
 *   `SecondFactorGate.afterPassword`: no second factor → the token response; a second factor → 202
 *   `{challenge_id, methods, number_match, expires_at, enrollment_url?}` and no token.
 * - `refresh` (`POST /v1/auth/refresh`): auth's own refresh tokens as before; one auth does not know
 *   (`refresh_token_invalid`) is tried at the realm (`refresh_token` grant through `svc-web-password`),
 *   whose refusals map to `refresh_token_invalid`, `refresh_token_reused` or `account_disabled`.
 * - `login_2fa`: body `{challenge_id, code?}` (4 KiB at most) → 202 `{status: "pending"}`, or 200 the
 *   parked token response, once, with `Cache-Control: no-store`; auth's 401 `code_invalid`,
 *   403 `challenge_denied`, 409 `challenge_used`, 410 `challenge_expired` pass through.
 */
import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import type { FastifyRequest } from 'fastify';
import type { WebPasswordClient } from '../clients/web-password.js';
import { SecondFactorGate, parseLogin2faBody } from '../domain/second-factor.js';
import { grantOutcome, readLoginBody, readRefreshBody } from '../domain/web-password-login.js';
import { unavailable, type BufferedAnswer, type UpstreamProxy } from '../plugins/forward.js';

/** Options of the `gateway-login` plugin. */
export interface LoginPluginOptions {
  /** Forwards the password login to auth. */
  proxy: UpstreamProxy;
  gate: SecondFactorGate;
  /** The embedded IdP's `svc-web-password` client (issue 15 item 1); absent: auth's own routes only. */
  webPassword?: WebPasswordClient;
}

/** Headers of every answer that carries, or stands in for, tokens (RFC 6749 §5.1). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/** Answer `body` (JSON text) with `status`, not to be stored (the admission chain set the correlation id). */
function noStore(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(NO_STORE).type('application/json; charset=utf-8').send(body);
}

/** The stable `code` of a JSON error answer, or null. */
function codeOf(answer: BufferedAnswer): string | null {
  try {
    const code = (JSON.parse(answer.body.toString('utf8')) as { code?: unknown } | null)?.code;
    return typeof code === 'string' ? code : null;
  } catch { return null; }
}

/** Register the `login`, `login_2fa` and `refresh` local targets. */
export const loginPlugin = fp<LoginPluginOptions>(async (app, { proxy, gate, webPassword }) => {
  /** A verified password's token response: 202 with a challenge when a second factor is due, else null. */
  const secondFactor = async (req: FastifyRequest, bundle: string): Promise<string | null> => {
    const ua = req.headers['user-agent'];
    const outcome = await gate.afterPassword(bundle, { ip: req.ip, userAgent: typeof ua === 'string' ? ua : '' });
    return outcome.kind === 'challenge' ? JSON.stringify(outcome.answer) : null;
  };

  app.gatewayTargets.handle('login', async (req, reply, path) => {
    const creds = webPassword ? readLoginBody(req.body, req.headers['content-type']) : null;
    if (webPassword && creds) {
      const realm = await webPassword.password(creds.username, creds.password, req.ip);
      if (realm === null) return unavailable(reply);
      const outcome = grantOutcome(realm);
      if (outcome.kind === 'refused') throw outcome.error;
      if (outcome.kind === 'tokens') {
        const challenge = await secondFactor(req, outcome.bundle);
        return challenge === null ? noStore(reply, 200, outcome.bundle) : noStore(reply, 202, challenge);
      }
      // A directory account: auth's own login below (issuer `{publicUrl}/auth`).
    }
    const answer = await proxy.exchange(req, 'auth', path);
    if (answer === null) return unavailable(reply);
    if (answer.statusCode === 200) {
      const challenge = await secondFactor(req, answer.body.toString('utf8'));
      if (challenge !== null) return noStore(reply, 202, challenge);
    }
    return reply.code(answer.statusCode).headers(answer.headers).send(answer.body);
  });

  app.gatewayTargets.handle('refresh', async (req, reply, path) => {
    if (!webPassword) return proxy.forward(req, reply, 'auth', path);
    const answer = await proxy.exchange(req, 'auth', path);
    if (answer === null) return unavailable(reply);
    const token = answer.statusCode === 401 && codeOf(answer) === 'refresh_token_invalid' ? readRefreshBody(req.body, req.headers['content-type']) : null;
    if (token !== null) {
      const realm = await webPassword.refresh(token, req.ip);
      const outcome = realm === null || (realm.status !== 200 && typeof realm.body.code !== 'string') ? null : grantOutcome(realm);
      if (outcome?.kind === 'tokens') return noStore(reply, 200, outcome.bundle);
      if (outcome?.kind === 'refused' && outcome.code !== 'refresh_token_invalid') throw outcome.error;
    }
    return reply.code(answer.statusCode).headers(answer.headers).send(answer.body);
  });

  app.gatewayTargets.handle('login_2fa', async (req, reply) => {
    const outcome = await gate.complete(parseLogin2faBody(req.body));
    return outcome.kind === 'pending' ? noStore(reply, 202, '{"status":"pending"}') : noStore(reply, 200, outcome.bundle);
  });
}, { name: 'gateway-login', fastify: '5.x', dependencies: ['gateway-proxy'] });
