/**
 * Session routes (spec: "Public auth surface"; DESIGN.md "Request bodies the spec leaves open"):
 * `POST /v1/auth/login`, `POST /v1/auth/refresh`, `POST /v1/auth/installer-handoff` (public) and
 * `GET /v1/auth/verify` (principal required). Token responses carry `Cache-Control: no-store`
 * (RFC 6749 §5.1).
 *
 * The auth service trusts the gateway, not the caller (issue 11 item 2): the client address comes
 * from the gateway's signed `X-Svc-Client` hop stamp, else from the TCP peer; forwarding headers are
 * never read. A password login without a valid hop stamp did not come through the gateway (its
 * per-IP rate limit, host allow-list and path checks) and is refused with 403 `gateway_required`
 * before any password check.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CLIENT_HOP_HEADER, clientAddress, type ClientAddress, type ClientHopVerifier } from '../../../shared/identity/client-hop.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  HandoffBodySchema, LoginBodySchema, RefreshBodySchema, TokenResponseSchema, VerifyViewSchema, type TokenResponse,
} from '../contracts.js';
import type { HandoffService } from '../domain/handoff.js';
import type { LoginService } from '../domain/login.js';
import type { TokenService } from '../domain/tokens.js';

/** Options of `sessionRoutes`. */
export interface SessionRoutesOptions {
  login: LoginService;
  tokens: TokenService;
  handoff: HandoffService;
  /** Verifies the gateway's `X-Svc-Client` hop stamps (keys derived from the principal keys). */
  hop: ClientHopVerifier;
}

/**
 * Where a request came from: the client address of a valid gateway hop stamp, else the TCP peer
 * (`req.socket.remoteAddress`). `X-Forwarded-For`, `X-Real-IP` and `Forwarded` are ignored: a
 * direct caller can write them.
 */
export function clientIp(req: FastifyRequest, hop: ClientHopVerifier): ClientAddress {
  return clientAddress(req.headers[CLIENT_HOP_HEADER], req.socket.remoteAddress, hop);
}

function noStore(reply: FastifyReply, body: TokenResponse): TokenResponse {
  void reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
  return body;
}

const pub = { public: true } as const;
const tokenReply = { 200: TokenResponseSchema } as const;

/** Register the session routes. */
export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRoutesOptions> = async (app, opts) => {
  app.post('/v1/auth/login', { config: pub, schema: { body: LoginBodySchema, response: tokenReply } }, async (req, reply) => {
    const client = clientIp(req, opts.hop);
    if (!client.viaGateway) throw new DomainError('gateway_required', 'password login is served through the gateway only');
    return noStore(reply, await opts.login.login(req.body.username, req.body.password, client.ip));
  });

  app.post('/v1/auth/refresh', { config: pub, schema: { body: RefreshBodySchema, response: tokenReply } },
    async (req, reply) => noStore(reply, await opts.tokens.rotate(req.body.refresh_token)));

  app.post('/v1/auth/installer-handoff', { config: pub, schema: { body: HandoffBodySchema, response: tokenReply } },
    async (req, reply) => noStore(reply, await opts.handoff.exchange(req.body.handoff_id, clientIp(req, opts.hop).ip)));

  app.get('/v1/auth/verify', { schema: { response: { 200: VerifyViewSchema } } }, async (req) => {
    const p = requirePrincipal(req);
    const upstream = Object.fromEntries((['upstream_iss', 'upstream_sub', 'upstream_preferred_username'] as const)
      .filter((k) => typeof p[k] === 'string').map((k) => [k, p[k] as string]));
    return { ok: true as const, sub: p.id, email: p.email ?? null, roles: [...p.roles], tenant_id: p.tenant_id, ...upstream };
  });
};
