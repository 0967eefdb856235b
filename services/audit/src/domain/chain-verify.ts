/**
 * Server-side chain verification (spec "Audit and receipts": the five checks of
 * `GET /v1/admin/audit/verify`). Keys are resolved fresh per run.
 *
 *  1. chain_continuity  previous_hash of each row = chain_hash of the row before (genesis for seq 1)
 *  2. hmac              signed_payload = JCS of the row's own columns, and its HMAC verifies under
 *                       the key of key_version (so an edited column is caught, not only an edited payload)
 *  3. seq_run           seq runs 1..N with no gap or repeat
 *  4. chain_head        every row has a checkpoint with equal audit_log_id, signature, previous hash
 *                       and chain hash
 *  5. counts            max(seq) and row count agree between audit_log and chain_head
 *
 * The walk reads in chunks up to the max seq seen at the start and yields to the event loop between
 * chunks, so appends continue while a long chain is checked.
 */
import type { ChainFailure, ChainReport } from '../contracts/audit-log.js';
import { chainHash, genesisHash, signedPayloadText, type Json } from '../verifier/format.js';
import { safeEqual } from '../verifier/hash.js';
import { hmacHexFast, nodeHashProvider, type KeyProvider } from './keys.js';
import type { AuditRowRecord, RowWithHead } from './ports.js';
import type { ChainReads } from './async-ports.js';

/** Most failures listed in a report (the walk continues; `ok` stays false). */
export const MAX_FAILURES = 1000;
const CHUNK = 5000;

function parseJson(text: string | null): { ok: true; value: Json } | { ok: false } {
  if (text === null) return { ok: true, value: null };
  try { return { ok: true, value: JSON.parse(text) as Json }; } catch { return { ok: false }; }
}

/** Rebuild a row's signed_payload from its columns; null when a JSON column does not parse. */
export function signedPayloadFromColumns(r: AuditRowRecord): string | null {
  const detail = parseJson(r.detail);
  const chain = parseJson(r.agent_chain);
  if (!detail.ok || !chain.ok) return null;
  try {
    return signedPayloadText({
      tenant_id: r.tenant_id, seq: r.seq, timestamp: r.timestamp, user_id: r.user_id, action: r.action, resource_type: r.resource_type,
      resource_id: r.resource_id, detail_type: r.detail_type, detail: detail.value, previous_hash: r.previous_hash, agent_id: r.agent_id,
      agent_chain: chain.value, delegated_by: r.delegated_by, key_version: r.key_version,
    });
  } catch {
    return null;
  }
}

/**
 * Verify a tenant's chain. `limit` checks only the newest `limit` rows (anchored on the row before
 * them); omitted, the whole chain is walked. `store` is the SQLite `AuditLogStore` or an async
 * store (PostgreSQL, issue 21 item 1): the same five checks run on both.
 */
export async function verifyChain(store: ChainReads, keys: KeyProvider, tenantId: string, limit?: number): Promise<ChainReport> {
  const byVersion = keys().byVersion;
  const failures: ChainFailure[] = [];
  let failed = false;
  const fail = (f: ChainFailure) => { failed = true; if (failures.length < MAX_FAILURES) failures.push(f); };

  const stats = await store.logStats(tenantId);
  const heads = await store.headStats(tenantId);
  if (stats.n === 0) {
    if (heads.n !== 0) fail({ check: 'counts', id: null, seq: null, reason: `audit_log has no rows but chain_head has ${heads.n}` });
    return { ok: !failed, checked: 0, failures };
  }
  const maxSeq = stats.m!;
  let startSeq = stats.lo!;
  if (limit !== undefined && limit < stats.n) startSeq = (await store.nthNewestSeq(tenantId, limit - 1)) ?? stats.lo!;
  let prevChain: string;
  let expectSeq: number;
  if (startSeq === stats.lo) {
    prevChain = genesisHash(tenantId, nodeHashProvider);
    expectSeq = 1;
  } else {
    const before = (await store.rowBefore(tenantId, startSeq))!;
    prevChain = chainHash(before.id, before.previous_hash, before.signature, nodeHashProvider);
    expectSeq = before.seq + 1;
  }

  let checked = 0;
  let from = startSeq;
  for (;;) {
    const rows: RowWithHead[] = await store.rowsWithHeads(tenantId, from, maxSeq, CHUNK);
    for (const r of rows) {
      checked++;
      const at = { id: r.id, seq: r.seq };
      if (r.seq !== expectSeq) fail({ check: 'seq_run', ...at, reason: `expected seq ${expectSeq}, found ${r.seq}` });
      expectSeq = r.seq + 1;
      if (!safeEqual(r.previous_hash, prevChain)) fail({ check: 'chain_continuity', ...at, reason: 'previous_hash does not equal the chain_hash of the row before' });
      const ch = chainHash(r.id, r.previous_hash, r.signature, nodeHashProvider);
      prevChain = ch;
      const rebuilt = signedPayloadFromColumns(r);
      if (rebuilt === null) fail({ check: 'hmac', ...at, reason: 'a JSON column of the row does not parse' });
      else if (rebuilt !== r.signed_payload) fail({ check: 'hmac', ...at, reason: 'row columns differ from signed_payload' });
      const key = byVersion.get(r.key_version);
      if (key === undefined) fail({ check: 'hmac', ...at, reason: `no key configured for key_version ${r.key_version}` });
      else if (!safeEqual(hmacHexFast(key, r.signed_payload), r.signature)) fail({ check: 'hmac', ...at, reason: `signature does not verify under key_version ${r.key_version}` });
      if (r.h_signature === null) fail({ check: 'chain_head', ...at, reason: 'no chain-head checkpoint for this row' });
      else {
        if (r.h_audit_log_id !== r.id) fail({ check: 'chain_head', ...at, reason: `checkpoint names audit_log_id ${r.h_audit_log_id}` });
        if (r.h_signature !== r.signature) fail({ check: 'chain_head', ...at, reason: 'checkpoint signature differs from the row' });
        if (r.h_previous_hash !== r.previous_hash) fail({ check: 'chain_head', ...at, reason: 'checkpoint previous_hash differs from the row' });
        if (r.h_chain_hash !== ch) fail({ check: 'chain_head', ...at, reason: 'checkpoint chain_hash differs from the recomputed chain hash' });
      }
    }
    if (rows.length < CHUNK) break;
    from = rows[rows.length - 1]!.seq + 1;
    await new Promise<void>((r) => setImmediate(r));
  }

  if (heads.m !== stats.m) fail({ check: 'counts', id: null, seq: null, reason: `max(seq) is ${stats.m} in audit_log but ${heads.m} in chain_head` });
  if (heads.n !== stats.n) fail({ check: 'counts', id: null, seq: null, reason: `audit_log has ${stats.n} rows but chain_head has ${heads.n}` });
  if (limit === undefined && stats.n !== maxSeq) fail({ check: 'seq_run', id: null, seq: null, reason: `${stats.n} rows but max(seq) is ${maxSeq}` });
  return { ok: !failed, checked, failures };
}
