/**
 * Signed identities and JSON calls for service tests: a principal as the gateway stamps it,
 * headers carrying it (and a turn id), and a fetch helper that answers status, parsed body and
 * headers.
 */
import type { Principal } from '../../services/shared/identity/principal.js';
import { signStamp } from '../../services/shared/identity/principal.js';
import { TEST_PRINCIPAL_KEY } from './service-configs.js';

/** A principal of `tenantId` valid for five minutes (`auth_method` service for service accounts). */
export function testPrincipal(id: string, roles: string[], tenantId: string, groups: string[] = []): Principal {
  const now = Math.floor(Date.now() / 1000);
  return { id, tenant_id: tenantId, roles, groups, auth_method: roles.includes('service-account') ? 'service' : 'password', iat: now, exp: now + 300 };
}

/** `X-Svc-Principal` signed with the test key, and `X-Svc-Turn-Id` when given. */
export function stampedHeaders(p: Principal, turnId?: string): Record<string, string> {
  const h: Record<string, string> = { 'x-svc-principal': signStamp(p, [TEST_PRINCIPAL_KEY]) };
  if (turnId) h['x-svc-turn-id'] = turnId;
  return h;
}

/**
 * A JSON call: a body is sent as JSON (`content-type` added unless the headers carry one).
 * @returns status, the parsed body (the text when not JSON, null when empty) and the headers.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export async function callJson(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const h: Record<string, string> = { ...headers };
  const init: RequestInit = { method, headers: h };
  if (body !== undefined) {
    if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch(`${base}${path}`, init);
  const text = await r.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* keep text */ }
  return { status: r.status, body: parsed, headers: r.headers };
}
