/**
 * Building one audit row of a tenant's chain (spec "Audit log row"), shared by every writer: the
 * SQLite single writer (chain-writer.ts) and the PostgreSQL writer for several processes
 * (async-chain-writer.ts, issue 21 item 1), so both store rows of identical content.
 *
 * seq = head.seq + 1, previous_hash = head.chain_hash (genesis for the first row),
 * signed_payload = JCS(signed fields), signature = HMAC(active key),
 * chain_hash = H(JCS({id, previous_hash, signature})).
 */
import { jcs } from '../../../shared/identity/jcs.js';
import { chainHash, genesisHash, signedPayloadText, type Json, type SignedRowFields } from '../verifier/format.js';
import { hmacHexFast, nodeHashProvider, sha256HexFast, type KeyRing } from './keys.js';
import type { AuditRowRecord, ChainHeadRecord } from './ports.js';

/** What a caller asks to append (tenant already pinned by the route). */
export interface AppendInput {
  tenant_id: string;
  user_id?: string | null;
  action: string;
  resource_type?: string | null;
  resource_id?: string | null;
  detail_type?: string | null;
  /** JSON object (stored as JSON text, signed as JSON). */
  detail?: Json;
  agent_id?: string | null;
  agent_chain?: Json;
  delegated_by?: string | null;
}

/** The tip of a tenant's chain: the last seq (0 when empty) and its chain hash (genesis when empty). */
export interface ChainTip { seq: number; chainHash: string }

/** One built row: the audit row, its checkpoint and its chain hash. */
export interface ChainedRow { row: AuditRowRecord; head: ChainHeadRecord; chainHash: string }

/** The tip after `last` (the tenant's newest row), or the genesis tip when the chain is empty. */
export function tipAfter(tenantId: string, last: AuditRowRecord | undefined): ChainTip {
  return last
    ? { seq: last.seq, chainHash: chainHash(last.id, last.previous_hash, last.signature, nodeHashProvider) }
    : { seq: 0, chainHash: genesisHash(tenantId, nodeHashProvider) };
}

/**
 * Build the row that follows `tip`.
 * @param id the row's audit_log id (unique across tenants; part of the chain hash).
 * @param keys the ring whose active key signs. @param timestamp RFC 3339 UTC.
 * @throws Error when `detail` or `agent_chain` cannot be canonicalised (nothing is written by this call).
 */
export function buildChainRow(input: AppendInput, tip: ChainTip, id: number, keys: KeyRing, timestamp: string): ChainedRow {
  const fields: SignedRowFields = {
    tenant_id: input.tenant_id,
    seq: tip.seq + 1,
    timestamp,
    user_id: input.user_id ?? null,
    action: input.action,
    resource_type: input.resource_type ?? null,
    resource_id: input.resource_id ?? null,
    detail_type: input.detail_type ?? null,
    detail: input.detail ?? {},
    previous_hash: tip.chainHash,
    agent_id: input.agent_id ?? null,
    agent_chain: input.agent_chain ?? null,
    delegated_by: input.delegated_by ?? null,
    key_version: keys.active.version,
  };
  const detailText = jcs(fields.detail);
  const signedPayload = signedPayloadText(fields, detailText);
  const signature = hmacHexFast(keys.active.key, signedPayload);
  // Same bytes as JCS({id, previous_hash, signature}): an integer and two hex strings need no escaping.
  const ch = sha256HexFast(`{"id":${id},"previous_hash":"${fields.previous_hash}","signature":"${signature}"}`);
  const row: AuditRowRecord = {
    id, tenant_id: fields.tenant_id, seq: fields.seq, timestamp: fields.timestamp, user_id: fields.user_id, action: fields.action,
    resource_type: fields.resource_type, resource_id: fields.resource_id, detail_type: fields.detail_type,
    detail: detailText, previous_hash: fields.previous_hash, signed_payload: signedPayload, signature,
    key_version: fields.key_version, agent_id: fields.agent_id,
    agent_chain: fields.agent_chain === null ? null : JSON.stringify(fields.agent_chain), delegated_by: fields.delegated_by,
  };
  const head: ChainHeadRecord = {
    tenant_id: row.tenant_id, seq: row.seq, audit_log_id: id, signature, previous_hash: row.previous_hash, chain_hash: ch, key_version: row.key_version,
  };
  return { row, head, chainHash: ch };
}
