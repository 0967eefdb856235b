/**
 * What every audit route plugin receives, and the access rules they share.
 *
 * Access (DESIGN.md decisions of this service): the tenant is always the pinned one; `admin` and
 * `service-account` principals see every turn of the tenant; other users see the turns they started
 * (the principal of the turn's first event). A turn a caller may not see answers 404, as if absent.
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/http/errors.js';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { Principal } from '../../../shared/identity/principal.js';
import type { AuditStore, TurnRecord } from '../store/audit-store.js';
import type { ArtifactService } from '../domain/artifacts.js';
import type { ChainWriter } from '../domain/chain-writer.js';
import type { KeyProvider } from '../domain/keys.js';
import type { ReceiptService } from '../domain/receipts.js';
import type { TurnService } from '../domain/turns.js';

/** Dependencies of the route plugins. */
export interface AuditContext {
  /** The pinned tenant (cfg.tenantId). */
  tenantId: string;
  store: AuditStore;
  writer: ChainWriter;
  turns: TurnService;
  receipts: ReceiptService;
  artifacts: ArtifactService;
  keys: KeyProvider;
}

/** True for principals that see the whole tenant (admin, service accounts). */
export function isPrivileged(p: Principal): boolean {
  return p.roles.includes('admin') || p.roles.includes('service-account');
}

/** Require a service principal (ingestion routes). @throws AppError 401/403. */
export function requireServiceAccount(req: FastifyRequest): Principal {
  const p = requirePrincipal(req);
  if (!p.roles.includes('service-account')) throw new AppError(403, 'service_account_required', 'only service accounts may call this route');
  return p;
}

/**
 * The turn if the caller may see it. @throws AppError 404 `turn_not_found` when absent or not the
 * caller's.
 */
export function visibleTurn(ctx: AuditContext, req: FastifyRequest, turnId: string): TurnRecord {
  const p = requirePrincipal(req);
  const t = ctx.store.getTurn(ctx.tenantId, turnId);
  if (!t || (!isPrivileged(p) && t.principal_id !== p.id)) throw new AppError(404, 'turn_not_found', `no turn ${turnId}`);
  return t;
}

/** 404 for a turn that exists but is not sealed yet (spec "Errors"). */
export function notSealed(turnId: string): AppError {
  return new AppError(404, 'receipt_not_sealed', `turn ${turnId} is not sealed yet`);
}

/** JSON schema of a `turn_id` path parameter. */
export const TURN_PARAM = {
  type: 'object', required: ['turn_id'], properties: { turn_id: { type: 'string', minLength: 1, maxLength: 128 } },
} as const;
