/**
 * What every route plugin of the runtime receives, and the caller identity they share.
 */
import type { FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { AgentRuntimeSettings } from '../contracts.js';
import type { ApprovalCenter } from '../domain/approvals.js';
import type { ChatEngine, TurnIdentity } from '../domain/chat-engine.js';
import type { LiveReplay } from '../domain/replay.js';
import type { SessionService } from '../domain/sessions.js';
import type { ToolRegistry } from '../domain/tool-registry.js';
import type { SourcedRule } from '../domain/tool-policy.js';
import type { RuntimeStore } from '../store/runtime-store.js';

/** Dependencies of the route plugins. */
export interface RuntimeContext {
  tenantId: string;
  settings: AgentRuntimeSettings;
  engine: ChatEngine;
  sessions: SessionService;
  approvals: ApprovalCenter;
  replay: LiveReplay;
  store: RuntimeStore;
  tools: ToolRegistry;
  policyRules(tenantId: string): SourcedRule[];
  log: { warn(obj: object, msg: string): void };
}

const FORWARD = ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token', 'x-correlation-id'] as const;

/**
 * The caller's identity and the stamped headers to forward to peers.
 * @throws AppError 401 when the request lacks a verified principal.
 */
export function turnIdentity(req: FastifyRequest, tenantId: string): TurnIdentity {
  const p = requirePrincipal(req);
  const headers: Record<string, string> = {};
  for (const h of FORWARD) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  return { tenantId: p.tenant_id || tenantId, userId: p.id, turnId: req.turnId, headers };
}
