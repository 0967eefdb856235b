/**
 * Session routes (spec: "Public auth surface"; DESIGN.md "Request bodies the spec leaves open"):
 * `POST /v1/auth/login`, `POST /v1/auth/refresh`, `POST /v1/auth/installer-handoff` (public) and
 * `GET /v1/auth/verify` (principal required). Token responses carry `Cache-Control: no-store`
 * (RFC 6749 §5.1).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
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
}

/**
 * The client IP for throttling: the first `X-Forwarded-For` entry (the gateway replaces any inbound
 * value with the client address), else the socket address.
 */
export function clientIp(req: FastifyRequest): string {
  const xff = req.headers['x-forwarded-for'];
  const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',', 1)[0]?.trim();
  return first && first.length <= 64 ? first : req.ip;
}

function noStore(reply: FastifyReply, body: TokenResponse): TokenResponse {
  void reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
  return body;
}

const pub = { public: true } as const;
const tokenReply = { 200: TokenResponseSchema } as const;

/** Register the session routes. */
export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRoutesOptions> = async (app, opts) => {
  app.post('/v1/auth/login', { config: pub, schema: { body: LoginBodySchema, response: tokenReply } },
    async (req, reply) => noStore(reply, await opts.login.login(req.body.username, req.body.password, clientIp(req))));

  app.post('/v1/auth/refresh', { config: pub, schema: { body: RefreshBodySchema, response: tokenReply } },
    async (req, reply) => noStore(reply, await opts.tokens.rotate(req.body.refresh_token)));

  app.post('/v1/auth/installer-handoff', { config: pub, schema: { body: HandoffBodySchema, response: tokenReply } },
    async (req, reply) => noStore(reply, await opts.handoff.exchange(req.body.handoff_id)));

  app.get('/v1/auth/verify', { schema: { response: { 200: VerifyViewSchema } } }, async (req) => {
    const p = requirePrincipal(req);
    return { ok: true as const, sub: p.id, email: p.email ?? null, roles: [...p.roles], tenant_id: p.tenant_id };
  });
};
