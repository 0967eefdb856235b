/**
 * HTTP calls of the admin surfaces to the runtime's peers (issue 13 item 8): `/readyz` probes, the
 * observability budget and generations, the sandbox sessions and readiness, knowledge documents and
 * status, memory status, the router's registry, the guardrail's policy. Each call has a short
 * deadline and answers a `PeerAnswer` (never throws), so one unreachable service only marks its own
 * section `unavailable`.
 *
 * Identity: calls that a service may make carry the runtime's own service stamp
 * (services/shared/identity/service-stamp.ts); calls whose peer route needs the admin role (knowledge
 * documents — a service principal is not a knowledge admin —, the router registry, guardrail policy
 * writes) forward the admin's own stamped headers.
 */
import { serviceStamp } from '../../../shared/identity/service-stamp.js';
import type { AdminPeers, PeerAnswer, ProbeResult } from '../domain/admin/ports.js';
import { callJson } from './http.js';

/** Deadline of a probe or a peer call, ms. */
export const PEER_TIMEOUT_MS = 1500;

/** Identity headers forwarded from the admin's request. */
export const ADMIN_FORWARDED = ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token', 'x-correlation-id'] as const;

/** What the client needs. */
export interface AdminPeersOptions {
  serviceUrls: Readonly<Record<string, string>>;
  tenantId: string;
  principalKeys: readonly string[];
  timeoutMs?: number;
}

/** The text of a `/readyz` body that says why it is not ready. */
function reasonOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  for (const k of ['reason', 'error', 'detail', 'message']) if (typeof b[k] === 'string' && b[k]) return b[k] as string;
  if (Array.isArray(b.failed) && b.failed.length) return `failed: ${b.failed.join(', ')}`;
  return null;
}

/** `AdminPeers` over HTTP. */
export class HttpAdminPeers implements AdminPeers {
  private readonly stamp: () => string;
  private readonly timeoutMs: number;

  constructor(private readonly o: AdminPeersOptions) {
    this.stamp = serviceStamp('agent-runtime', o.tenantId, o.principalKeys);
    this.timeoutMs = o.timeoutMs ?? PEER_TIMEOUT_MS;
  }

  async probe(service: string): Promise<ProbeResult> {
    const base = this.o.serviceUrls[service];
    if (!base) return { state: 'failed', latencyMs: 0, detail: 'not configured' };
    const t0 = performance.now();
    try {
      const r = await callJson(`${base}/readyz`, { timeoutMs: this.timeoutMs });
      const latencyMs = Math.round((performance.now() - t0) * 10) / 10;
      return r.status === 200 ? { state: 'ready', latencyMs, detail: null } : { state: 'starting', latencyMs, detail: reasonOf(r.body) ?? `HTTP ${r.status}` };
    } catch (err) {
      return { state: 'failed', latencyMs: Math.round(performance.now() - t0), detail: (err as Error).message || 'unreachable' };
    }
  }

  budget(tenantId: string): Promise<PeerAnswer<Record<string, unknown>>> {
    return this.call('observability', 'GET', `/v1/internal/budgets/${encodeURIComponent(tenantId)}`, this.service());
  }

  sandboxSessions(): Promise<PeerAnswer<Record<string, unknown>>> {
    return this.call('sandbox', 'GET', '/sessions', this.service());
  }

  async sandboxReadiness(): Promise<PeerAnswer<Record<string, unknown>>> {
    const r = await this.call<Record<string, unknown>>('sandbox', 'GET', '/readyz', {});
    // A 503 /readyz still carries the readiness fields: that is the answer.
    if (!r.ok && r.status === 503 && r.body && typeof r.body === 'object') return { ok: true, body: r.body as Record<string, unknown> };
    return r;
  }

  documents(as: Record<string, string>, status: 'failed' | 'indexing', limit: number): Promise<PeerAnswer<{ items: Array<Record<string, unknown>>; next_cursor?: string }>> {
    return this.call('knowledge', 'GET', `/v1/knowledge/documents?status=${status}&archived=include&limit=${limit}`, this.admin(as));
  }

  knowledgeStatus(as: Record<string, string>): Promise<PeerAnswer<Record<string, unknown>>> {
    return this.call('knowledge', 'GET', '/v1/knowledge/status', this.admin(as));
  }

  memoryStatus(as: Record<string, string>): Promise<PeerAnswer<Record<string, unknown>>> {
    return this.call('memory', 'GET', '/v1/memory/status', this.admin(as));
  }

  providers(as: Record<string, string>): Promise<PeerAnswer<{ items: Array<Record<string, unknown>> }>> {
    return this.call('inference-router', 'GET', '/v1/internal/providers', this.admin(as));
  }

  modelRoles(as: Record<string, string>): Promise<PeerAnswer<{ items: Array<Record<string, unknown>> }>> {
    return this.call('inference-router', 'GET', '/v1/internal/roles', this.admin(as));
  }

  devices(as: Record<string, string>): Promise<PeerAnswer<{ items: Array<Record<string, unknown>> }>> {
    return this.call('auth', 'GET', '/v1/account/devices', this.admin(as));
  }

  guardPolicy(agentId: string | undefined): Promise<PeerAnswer<Record<string, unknown>>> {
    return this.call('guardrail', 'GET', `/v1/guard/policy${agentId ? `?agent_id=${encodeURIComponent(agentId)}` : ''}`, this.service());
  }

  putGuardPolicy(as: Record<string, string>, body: { agent_id?: string; policy: Record<string, unknown> }): Promise<PeerAnswer<Record<string, unknown>>> {
    return this.call('guardrail', 'PUT', '/v1/guard/policy', this.admin(as), body);
  }

  deleteGuardPolicy(as: Record<string, string>, agentId: string | undefined): Promise<PeerAnswer<null>> {
    return this.call('guardrail', 'DELETE', `/v1/guard/policy${agentId ? `?agent_id=${encodeURIComponent(agentId)}` : ''}`, this.admin(as));
  }

  generations(since: string, limit: number, cursor: string | undefined): Promise<PeerAnswer<{ items: Array<Record<string, unknown>>; next_cursor?: string }>> {
    const q = `since=${encodeURIComponent(since)}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    return this.call('observability', 'GET', `/v1/generations?${q}`, this.service());
  }

  /** Headers of the runtime's service principal. */
  private service(): Record<string, string> {
    return { 'x-svc-principal': this.stamp() };
  }

  /** The admin's forwarded identity headers. */
  private admin(as: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = {};
    for (const k of ADMIN_FORWARDED) if (as[k]) h[k] = as[k];
    return h;
  }

  /** One call; a non-2xx answer, no answer or a timeout become `{ok: false}`. */
  private async call<T>(service: string, method: 'GET' | 'PUT' | 'DELETE', path: string, headers: Record<string, string>, body?: unknown): Promise<PeerAnswer<T>> {
    const base = this.o.serviceUrls[service];
    if (!base) return { ok: false, status: 0, code: 'not_configured', error: `${service} is not configured` };
    try {
      const r = await callJson(`${base}${path}`, { method, headers, timeoutMs: this.timeoutMs, ...(body !== undefined ? { body } : {}) });
      if (r.status >= 200 && r.status < 300) return { ok: true, body: r.body as T };
      const e = (r.body ?? {}) as { error?: unknown; code?: unknown };
      return {
        ok: false, status: r.status, code: typeof e.code === 'string' ? e.code : null,
        error: typeof e.error === 'string' ? e.error : `${service} answered HTTP ${r.status}`, body: r.body,
      };
    } catch (err) {
      return { ok: false, status: 0, code: 'unreachable', error: `${service} did not answer (${(err as Error).message || 'unreachable'})` };
    }
  }
}
