/**
 * Session routes (spec: "Public auth surface"; DESIGN.md "Request bodies the spec leaves open"):
 * `POST /v1/auth/login`, `POST /v1/auth/refresh`, `POST /v1/auth/installer-handoff` (public) and
 * `GET /v1/auth/verify` (principal required). Token responses carry `Cache-Control: no-store`
 * (RFC 6749 §5.1).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../../shared/http/server.js';
import { LIMITS, type TokenResponse, type VerifyView } from '../contracts.js';
import type { HandoffService } from '../domain/handoff.js';
import type { LoginService } from '../domain/login.js';
import type { TokenService } from '../domain/tokens.js';
import { str, tokenResponseSchema } from './schemas.js';

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

const tokenReply = { 200: tokenResponseSchema } as const;

/** Register the session routes. */
export const sessionRoutes: FastifyPluginAsync<SessionRoutesOptions> = async (app, opts) => {
  const pub = { public: true } as const;

  app.post<{ Body: { username: string; password: string } }>('/v1/auth/login', {
    config: pub,
    schema: {
      body: {
        type: 'object', required: ['username', 'password'], additionalProperties: false,
        properties: { username: str(LIMITS.emailMax, 1), password: str(LIMITS.passwordMax, 1) },
      },
      response: tokenReply,
    },
  }, async (req, reply) => noStore(reply, await opts.login.login(req.body.username, req.body.password, clientIp(req))));

  app.post<{ Body: { refresh_token: string } }>('/v1/auth/refresh', {
    config: pub,
    schema: {
      body: { type: 'object', required: ['refresh_token'], additionalProperties: false, properties: { refresh_token: str(512, 1) } },
      response: tokenReply,
    },
  }, async (req, reply) => noStore(reply, await opts.tokens.rotate(req.body.refresh_token)));

  app.post<{ Body: { handoff_id: string } }>('/v1/auth/installer-handoff', {
    config: pub,
    schema: {
      body: { type: 'object', required: ['handoff_id'], additionalProperties: false, properties: { handoff_id: str(128, 1) } },
      response: tokenReply,
    },
  }, async (req, reply) => noStore(reply, await opts.handoff.exchange(req.body.handoff_id)));

  app.get('/v1/auth/verify', {
    schema: {
      response: {
        200: {
          type: 'object', required: ['ok', 'sub', 'email', 'roles', 'tenant_id'],
          properties: { ok: { type: 'boolean' }, sub: { type: 'string' }, email: { type: ['string', 'null'] }, roles: { type: 'array', items: { type: 'string' } }, tenant_id: { type: 'string' } },
        },
      },
    },
  }, async (req): Promise<VerifyView> => {
    const p = requirePrincipal(req);
    return { ok: true, sub: p.id, email: p.email ?? null, roles: [...p.roles], tenant_id: p.tenant_id };
  });
};
