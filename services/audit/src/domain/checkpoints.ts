/**
 * Signed chain checkpoints (issue 22 item 3; C2SP signed-note and tlog-checkpoint; docs/receipt-format-v2.md).
 *
 * A checkpoint is a signed note over `<origin>\n<seq>\n<base64 chain_hash>\ntimestamp <RFC 3339>\nkid <kid>\n`
 * where `seq` and `chain_hash` are those of the tenant chain's head row, signed with the active
 * receipt Ed25519 key under the key name `<origin>` (key hash per signed-note). Origin:
 * `<workstation>/svc-receipts/<tenant>`. One is made at every manual seal (inside the seal's writer
 * job) and periodically when the head moved (`CheckpointTimer`); a proof carries the first one at
 * or after its anchor.
 */
import { sign, type KeyObject } from 'node:crypto';
import { chainHash } from '../verifier/format.js';
import { fromHex } from '../verifier/hash.js';
import { formatCheckpointText, formatNote, isValidKeyName, noteKeyHash } from '../verifier/note.js';
import type { AsyncPort } from './async-ports.js';
import { nodeHashProvider } from './keys.js';
import { aw, drive, type Awaitable, type Steps } from './maybe-async.js';
import type { AuditLogStore } from './ports.js';
import type { ReceiptSigner } from './receipt-signing.js';

/** A stored checkpoint (`receipt_checkpoints`). */
export interface CheckpointRow { tenant_id: string; seq: number; chain_hash: string; kid: string; note: string; created_at: string }

/** The `receipt_checkpoints` table. */
export interface CheckpointStore {
  /** Insert a checkpoint; a second one at the same (tenant, seq) is ignored. */
  insert(r: CheckpointRow): void;
  /** The newest checkpoint of a tenant. */
  latest(tenantId: string): CheckpointRow | undefined;
  /** The checkpoint at exactly `seq`. */
  at(tenantId: string, seq: number): CheckpointRow | undefined;
  /** The first checkpoint at or after `seq`. */
  firstAtOrAfter(tenantId: string, seq: number): CheckpointRow | undefined;
}

/**
 * The checkpoint origin of a workstation and tenant: `<workstation>/svc-receipts/<tenant>`, with
 * every character that a signed-note key name may not hold (whitespace, "+", controls, "/" in the
 * parts) replaced by "-". Lowercased workstation name.
 */
export function checkpointOrigin(workstation: string, tenantId: string): string {
  const clean = (s: string): string => s.replace(/[\s+/\u0000-\u001f\u007f]/gu, '-') || '-';
  const origin = `${clean(workstation.toLowerCase())}/svc-receipts/${clean(tenantId)}`;
  if (!isValidKeyName(origin)) throw new Error(`invalid checkpoint origin ${origin}`);
  return origin;
}

/** Signs, stores and reads checkpoints. */
export class CheckpointService {
  /**
   * @param store the checkpoint table; @param log the audit log (chain head);
   * @param signer the active receipt key; @param originOf the origin of a tenant; @param now clock.
   */
  constructor(
    private readonly store: AsyncPort<CheckpointStore>, private readonly log: AsyncPort<Pick<AuditLogStore, 'lastRow'>>, private readonly signer: ReceiptSigner,
    private readonly originOf: (tenantId: string) => string, private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Sign and store a checkpoint of (`seq`, `chainHashHex`), unless one exists at that seq.
   * Must run inside a writer job (or where no writer job can interleave). @returns the row
   * (synchronously over SQLite).
   */
  sign(tenantId: string, seq: number, chainHashHex: string): Awaitable<CheckpointRow> {
    return drive(this.signSteps(tenantId, seq, chainHashHex));
  }

  private *signSteps(tenantId: string, seq: number, chainHashHex: string): Steps<CheckpointRow> {
    const existing = yield* aw(this.store.at(tenantId, seq));
    if (existing) return existing;
    const { kid, key } = this.signer.signer();
    const origin = this.originOf(tenantId);
    const created = this.now().toISOString();
    const text = formatCheckpointText({ origin, size: seq, hash: fromHex(chainHashHex), extensions: [`timestamp ${created}`, `kid ${kid}`] });
    const sig = new Uint8Array(sign(null, Buffer.from(text, 'utf8'), key));
    const raw = this.publicKeyOf(kid, key);
    const note = formatNote(text, [{ name: origin, keyHash: noteKeyHash(origin, raw, nodeHashProvider), sig }]);
    const row: CheckpointRow = { tenant_id: tenantId, seq, chain_hash: chainHashHex, kid, note, created_at: created };
    yield* aw(this.store.insert(row));
    return row;
  }

  private rawKey: { kid: string; raw: Uint8Array } | null = null;

  private publicKeyOf(kid: string, key: KeyObject): Uint8Array {
    if (this.rawKey?.kid !== kid) this.rawKey = { kid, raw: new Uint8Array(Buffer.from((key.export({ format: 'jwk' }) as { x: string }).x, 'base64url')) };
    return this.rawKey.raw;
  }

  /**
   * Sign the tenant chain's head when it moved past the latest checkpoint (inside a writer job:
   * `yield* aw(...)`, or synchronously over SQLite). @returns the new row, or null.
   */
  signHeadIfMoved(tenantId: string): Awaitable<CheckpointRow | null> {
    return drive(this.signHeadSteps(tenantId));
  }

  /** `signHeadIfMoved` as a writer-job body. */
  *signHeadSteps(tenantId: string): Steps<CheckpointRow | null> {
    const head = yield* aw(this.log.lastRow(tenantId));
    if (!head) return null;
    const latest = yield* aw(this.store.latest(tenantId));
    if (latest && latest.seq >= head.seq) return null;
    return yield* this.signSteps(tenantId, head.seq, chainHash(head.id, head.previous_hash, head.signature, nodeHashProvider));
  }

  /** The newest checkpoint note, or undefined. */
  latest(tenantId: string): Awaitable<CheckpointRow | undefined> { return this.store.latest(tenantId); }
  /** The checkpoint at `seq`, or undefined. */
  at(tenantId: string, seq: number): Awaitable<CheckpointRow | undefined> { return this.store.at(tenantId, seq); }
  /** The first checkpoint at or after `seq` (the one a proof anchored at `seq` carries), or undefined. */
  firstAtOrAfter(tenantId: string, seq: number): Awaitable<CheckpointRow | undefined> { return this.store.firstAtOrAfter(tenantId, seq); }
}

/**
 * The periodic checkpointer: every `intervalSeconds`, a writer job signs the head of each tenant
 * when it moved. The timer is unref'd; `stop` clears it.
 */
export class CheckpointTimer {
  private timer: NodeJS.Timeout | null = null;

  /** @param run one pass (sign the heads that moved); @param intervalSeconds period. */
  constructor(private readonly run: () => Promise<unknown>, private readonly intervalSeconds: number, private readonly onError?: (err: unknown) => void) {}

  /** Start the periodic passes. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => { this.run().catch((err: unknown) => this.onError?.(err)); }, Math.max(0.05, this.intervalSeconds) * 1000);
    this.timer.unref();
  }

  /** Stop the passes. */
  stop(): void {
    if (this.timer) { clearInterval(this.timer); this.timer = null; }
  }
}
