/**
 * The audit log use cases (spec "Audit log row", "Audit and receipts"): append a row for the
 * caller (secrets redacted before signing), the admin listing, and the server-side chain check.
 */
import { isServicePrincipal, type Principal } from '../../../shared/identity/principal-types.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { AuditAppendRequest, AuditAppendResponse, AuditListQuery, AuditRowPage, AuditRowView, ChainReport } from '../contracts/audit-log.js';
import { chainHash, type Json } from '../verifier/format.js';
import type { AsyncPort, ChainReads } from './async-ports.js';
import { verifyChain } from './chain-verify.js';
import { nodeHashProvider, type KeyProvider } from './keys.js';
import type { AuditLogStore, AuditRowRecord } from './ports.js';
import { redactSecrets } from './redact.js';
import type { AuditWriter } from './writer.js';

/** The audit log reads of the service: the listing and the chain check (SQLite: sync; PostgreSQL: async). */
export type AuditLogReads = ChainReads & AsyncPort<Pick<AuditLogStore, 'list'>>;

/** Row as shown to admins (JSON columns parsed, chain_hash recomputed). */
export function rowView(r: AuditRowRecord): AuditRowView {
  return {
    id: r.id, seq: r.seq, timestamp: r.timestamp, tenant_id: r.tenant_id, user_id: r.user_id, action: r.action, resource_type: r.resource_type,
    resource_id: r.resource_id, detail_type: r.detail_type, detail: JSON.parse(r.detail) as Json, previous_hash: r.previous_hash,
    signed_payload: r.signed_payload, signature: r.signature, key_version: r.key_version,
    chain_hash: chainHash(r.id, r.previous_hash, r.signature, nodeHashProvider), agent_id: r.agent_id,
    agent_chain: r.agent_chain === null ? null : JSON.parse(r.agent_chain) as Json, delegated_by: r.delegated_by,
  };
}

/** Append, list and check the audit log of the pinned tenant. */
export class AuditLogService {
  /**
   * @param tenantId the pinned tenant (rows go there whatever a body says);
   * @param log the audit log tables; @param writer the single writer (SQLite `ChainWriter` or
   * PostgreSQL `AsyncChainWriter`); @param keys the key ring in force.
   */
  constructor(private readonly tenantId: string, private readonly log: AuditLogReads, private readonly writer: Pick<AuditWriter, 'append'>, private readonly keys: KeyProvider) {}

  /**
   * Append a row for `caller` (`POST /v1/audit`). `user_id` is honoured from service principals
   * only (`isServicePrincipal`, issue 11 item 1); `result` folds into `detail.result`; secret-looking detail keys are redacted.
   * @returns the row's chain fields once committed.
   * @throws DomainError 400 `tenant_missing` when the caller carries no tenant_id.
   */
  async append(caller: Pick<Principal, 'id' | 'roles' | 'tenant_id' | 'auth_method'>, b: AuditAppendRequest): Promise<AuditAppendResponse> {
    if (typeof caller.tenant_id !== 'string' || caller.tenant_id.length === 0) throw new DomainError('tenant_missing', 'the principal carries no tenant_id');
    let detail = redactSecrets((b.detail ?? {}) as Json) as Record<string, Json>;
    if (b.result !== undefined) detail = { ...detail, result: redactSecrets(b.result as Json) };
    const userId = isServicePrincipal(caller) && b.user_id !== undefined ? b.user_id : caller.id;
    const row = await this.writer.append({
      tenant_id: this.tenantId, user_id: userId, action: b.action, resource_type: b.resource_type ?? null, resource_id: b.resource_id ?? null,
      detail_type: b.detail_type ?? null, detail, agent_id: b.agent_id ?? null, agent_chain: (b.agent_chain ?? null) as Json,
      delegated_by: b.delegated_by ?? null,
    });
    return {
      id: row.id, seq: row.seq, tenant_id: row.tenant_id, timestamp: row.timestamp, key_version: row.key_version,
      signature: row.signature, previous_hash: row.previous_hash, chain_hash: row.chain_hash,
    };
  }

  /** Rows newest first, filtered by user and action (`GET /v1/admin/audit`); `next_cursor` is the next offset. */
  async list(q: AuditListQuery): Promise<AuditRowPage> {
    const limit = q.limit ?? 50;
    const offset = q.offset ?? 0;
    const rows = await this.log.list({ tenantId: this.tenantId, userId: q.user_id, action: q.action, limit: limit + 1, offset });
    const items = rows.slice(0, limit).map(rowView);
    return rows.length > limit ? { items, next_cursor: String(offset + limit) } : { items };
  }

  /** Check a tenant's chain (`GET /v1/admin/audit/verify`); `limit` checks only the newest rows. */
  verifyChain(tenantId: string, limit?: number): Promise<ChainReport> {
    return verifyChain(this.log, this.keys, tenantId, limit);
  }
}
