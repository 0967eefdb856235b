/**
 * Owner routing of a scaled-out sandbox (issue 21 item 3; domain/owners.ts): before a session's
 * route runs, the registry says which instance holds the session; a call for a session another live
 * instance holds is forwarded there unchanged (method, path, body, the caller's token and stamps)
 * and its answer relayed (status, content type, body). A forwarded call carries
 * `x-svc-sandbox-forwarded` and always runs where it lands, so a call is forwarded at most once.
 * When the owner does not answer (it stopped between heartbeats), the call runs here.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { request } from 'undici';
import type { SessionOwners } from '../domain/owners.js';
import type { SessionKey } from '../domain/sessions.js';

/** Header of a call another instance forwarded (value: that instance's id). */
export const FORWARDED_HEADER = 'x-svc-sandbox-forwarded';

const HOP_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', FORWARDED_HEADER]);

/** The session a request names (body or path), or null for routes without one. */
export function sessionKeyOf(req: FastifyRequest): SessionKey | null {
  const params = req.params as { tenant_id?: unknown; session_id?: unknown } | undefined;
  if (params && typeof params.session_id === 'string' && typeof params.tenant_id === 'string') return { tenantId: params.tenant_id, sessionId: params.session_id };
  const body = req.body as { tenant_id?: unknown; session_id?: unknown } | undefined;
  if (!body || typeof body !== 'object' || typeof body.session_id !== 'string') return null;
  const tenant = typeof body.tenant_id === 'string' ? body.tenant_id : req.principal?.tenant_id;
  return tenant ? { tenantId: tenant, sessionId: body.session_id } : null;
}

/** The headers a forwarded call carries. */
export function forwardHeaders(req: FastifyRequest, instance: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (HOP_HEADERS.has(k) || v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  out[FORWARDED_HEADER] = instance;
  return out;
}

/**
 * Add the routing hook to `app` (before the session routes are registered).
 * @param instance this instance's id (sent in `x-svc-sandbox-forwarded`).
 */
export function ownerRouting(app: FastifyInstance, owners: SessionOwners, instance: string, log: { warn(o: object, m: string): void }): void {
  app.addHook('preHandler', async (req, reply) => {
    if (req.headers[FORWARDED_HEADER] || !req.principal) return;
    const key = sessionKeyOf(req);
    if (!key) return;
    const owner = await owners.resolve(key);
    if (owner.here) return;
    let res;
    try {
      res = await request(`${owner.url}${req.url}`, {
        method: req.method as 'POST',
        headers: { ...forwardHeaders(req, instance), ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
        headersTimeout: 0, bodyTimeout: 0,
      });
    } catch (err) {
      log.warn({ err: (err as Error).message, owner: owner.instance }, 'sandbox session owner did not answer: the call runs here');
      return;
    }
    const text = await res.body.text();
    const type = res.headers['content-type'];
    if (typeof type === 'string') void reply.header('content-type', type);
    const retry = res.headers['retry-after'];
    if (typeof retry === 'string') void reply.header('retry-after', retry);
    return reply.code(res.statusCode).send(res.statusCode === 204 ? null : text);
  });
}

/**
 * The sessions the other live instances hold, for the admin list (`GET /sessions` asks each with the
 * caller's token; an instance that does not answer within 5 s is left out).
 * @returns their `sessions` arrays, concatenated.
 */
export async function peerSessions<T>(req: FastifyRequest, owners: SessionOwners, instance: string): Promise<T[]> {
  if (req.headers[FORWARDED_HEADER]) return [];
  const peers = await owners.peers();
  const lists = await Promise.all(peers.map(async (p) => {
    try {
      const res = await request(`${p.url}/sessions`, { method: 'GET', headers: forwardHeaders(req, instance), headersTimeout: 5000, bodyTimeout: 5000 });
      if (res.statusCode !== 200) { await res.body.dump(); return []; }
      return ((await res.body.json()) as { sessions?: T[] }).sessions ?? [];
    } catch {
      return [];
    }
  }));
  return lists.flat();
}
