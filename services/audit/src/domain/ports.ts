/**
 * What the audit domain needs from persistence (DESIGN.md "Inside a service": `domain/ports.ts`).
 * `store/` implements these over SQLite; the shapes are plain rows and calls, so a PostgreSQL
 * implementation could stand behind them (no driver or statement types cross this line).
 *
 * Tables (migrations/audit/0001_init.sql): audit_log and chain_head (append-only), turns (receipt
 * state), turn_events, envelopes (append-only), artifacts.
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { SignedRowFields } from '../verifier/format.js';
import type { TurnHistory } from './receipt-history.js';

/**
 * A stored audit row (spec "Audit log row"): the signed fields of `SignedRowFields`, with its JSON
 * columns (`detail`, `agent_chain`) still as text, plus the row's id, payload and signature.
 */
export interface AuditRowRecord extends Omit<SignedRowFields, 'detail' | 'agent_chain'> {
  id: number;
  /** JSON text. */
  detail: string;
  /** JSON text or null. */
  agent_chain: string | null;
  signed_payload: string;
  signature: string;
}

/** A chain-head checkpoint row (spec "Audit log row", second record). */
export interface ChainHeadRecord {
  tenant_id: string;
  seq: number;
  audit_log_id: number;
  signature: string;
  previous_hash: string;
  chain_hash: string;
  key_version: string;
}

/** An audit row joined with its checkpoint (null columns when the checkpoint is missing). */
export interface RowWithHead extends AuditRowRecord {
  h_audit_log_id: number | null;
  h_signature: string | null;
  h_previous_hash: string | null;
  h_chain_hash: string | null;
}

/** Filters of the admin listing (newest first). */
export interface ListFilter { tenantId: string; userId?: string | undefined; action?: string | undefined; limit: number; offset: number }

/** A stored turn event (leaf fields plus arrival time, Unix ms). */
export interface TurnEventRecord {
  tenant_id: string;
  turn_id: string;
  event_id: string;
  principal_id: string;
  emitter_service: string;
  emitter_instance: string | null;
  occurred_at: string;
  sequence_in_service: number;
  payload_type: string;
  payload_json: string;
  received_ms: number;
}

/** A turn row: receipt state of one turn. */
export interface TurnRecord {
  tenant_id: string;
  turn_id: string;
  receipt_id: string;
  /** The principal of the turn's first event: its owner. */
  principal_id: string;
  created_ms: number;
  /** The first terminal payload type seen (`turn_sealed` / `turn_failed`), or null. */
  terminal: string | null;
  status: 'pending' | 'sealed' | 'verified';
  sealed_at: string | null;
  /** seq of the anchoring audit row (the receipt list's order). */
  sealed_seq: number | null;
  verified_at: string | null;
  verified_by: string | null;
  /** History columns (migrations/audit/0002, issue 13 item 7): set when the turn seals; null before. */
  kind?: string | null;
  summary?: string | null;
  method?: string | null;
  route?: string | null;
  outcome?: string | null;
  http_status?: number | null;
  started_at?: string | null;
}

/** A filtered page of sealed turns (`GET /v1/receipts`, issue 13 item 7); null fields do not filter. */
export interface SealedTurnQuery {
  /** Only anchors below this audit seq (the cursor). */
  beforeSeq: number;
  limit: number;
  /** One owner, or null for the whole tenant. */
  principalId: string | null;
  /** One kind, or null for every kind. */
  kind: string | null;
  /** A LIKE pattern (ESCAPE `\`) over summary, route, method and turn id, or null. */
  like: string | null;
}

/** A stored envelope (payload as JCS text). */
export interface EnvelopeRow {
  tenant_id: string;
  turn_id: string;
  payload: string;
  signature: string;
  key_version: string;
  audit_log_id: number;
  audit_seq: number;
  audit_previous_hash: string;
  audit_signature: string;
  audit_chain_hash: string;
  sealed_at: string;
}

/** Artifact metadata row. */
export interface ArtifactRecord {
  tenant_id: string;
  turn_id: string;
  event_id: string;
  kind: string;
  sha256: string;
  /** Bytes. */
  size: number;
  content_type: string;
  created_at: string;
}

/**
 * Transactions of the single writer: one transaction per group commit, one savepoint per job
 * (a failing job rolls back alone). `fn` must be synchronous.
 */
export interface WriteTransactions {
  /** Run `fn` in a transaction (a savepoint when already inside one); rolls back when it throws. */
  transaction<T>(fn: () => T): T;
  /** Open the per-job savepoint (inside `transaction`). */
  savepoint(): void;
  /** Release the per-job savepoint (its writes join the enclosing transaction). */
  release(): void;
  /** Undo the per-job savepoint's writes and release it. */
  rollbackToSavepoint(): void;
}

/** The audit log and its chain-head checkpoints (`audit_log`, `chain_head`). */
export interface AuditLogStore {
  /** Highest audit_log id, 0 when empty. */
  maxId(): number;
  /** The newest row of a tenant's chain. */
  lastRow(tenantId: string): AuditRowRecord | undefined;
  /** Insert an audit row and its checkpoint (caller holds the transaction). */
  insertRowAndHead(row: AuditRowRecord, head: ChainHeadRecord): void;
  /** Rows of a tenant, newest first, filtered. */
  list(f: ListFilter): AuditRowRecord[];
  /** Up to `limit` rows with seq in [fromSeq, toSeq], joined with their checkpoints, by seq. */
  rowsWithHeads(tenantId: string, fromSeq: number, toSeq: number, limit: number): RowWithHead[];
  /** Every row of the tenant chain from `seq` forward (proof suffix). */
  suffixFrom(tenantId: string, seq: number): AuditRowRecord[];
  /** The row immediately before `seq` in the tenant chain. */
  rowBefore(tenantId: string, seq: number): AuditRowRecord | undefined;
  /** seq of the n-th newest row (0-based), or undefined when the chain is shorter. */
  nthNewestSeq(tenantId: string, n: number): number | undefined;
  /** Row count, max seq and min seq of the tenant's audit log. */
  logStats(tenantId: string): { n: number; m: number | null; lo: number | null };
  /** Row count and max seq of the tenant's checkpoints. */
  headStats(tenantId: string): { n: number; m: number | null };
}

/** Turns and their receipt state (`turns`). */
export interface TurnStore {
  /** One turn, or undefined. */
  get(tenantId: string, turnId: string): TurnRecord | undefined;
  /** Create a pending turn. */
  insert(tenantId: string, turnId: string, receiptId: string, principalId: string, createdMs: number): void;
  /** Record the first terminal event type of a turn. */
  setTerminal(tenantId: string, turnId: string, payloadType: string): void;
  /** pending -> sealed. @returns whether the turn changed. */
  markSealed(tenantId: string, turnId: string, sealedAt: string, sealedSeq: number): boolean;
  /** sealed|verified -> verified, recording when and by whom. @returns whether a row changed. */
  markVerified(tenantId: string, turnId: string, at: string, by: string): boolean;
  /** Pending turns (any tenant) created before `beforeMs`, oldest first. */
  stalled(beforeMs: number, limit: number): Array<{ tenant_id: string; turn_id: string }>;
  /** Sealed turns newest first (by anchor seq) below `beforeSeq`, optionally of one principal. */
  sealed(tenantId: string, beforeSeq: number, limit: number, principalId: string | null): TurnRecord[];
  /** Record what a turn was as it seals (issue 13 item 7). */
  setHistory(tenantId: string, turnId: string, h: TurnHistory): void;
  /** Sealed turns newest first (by anchor seq), filtered by `q` (issue 13 item 7). */
  sealedPage(tenantId: string, q: SealedTurnQuery): TurnRecord[];
}

/** Turn events (`turn_events`). */
export interface TurnEventStore {
  /** Whether the event is already stored. */
  exists(tenantId: string, turnId: string, eventId: string): boolean;
  /** Insert one event. */
  insert(e: TurnEventRecord): void;
  /** All events of a turn (unordered; the domain sorts by the leaf order). */
  ofTurn(tenantId: string, turnId: string): TurnEventRecord[];
}

/** Sealed envelopes (`envelopes`, append-only). */
export interface EnvelopeStore {
  /** Insert a sealed envelope. */
  insert(e: EnvelopeRow): void;
  /** The envelope of a turn, or undefined before the seal. */
  get(tenantId: string, turnId: string): EnvelopeRow | undefined;
}

/** Artifact metadata (`artifacts`). */
export interface ArtifactStore {
  /** One artifact's metadata. */
  get(tenantId: string, turnId: string, eventId: string, kind: string): ArtifactRecord | undefined;
  /** Artifacts of a turn, by event id then kind. */
  ofTurn(tenantId: string, turnId: string): ArtifactRecord[];
  /** Insert artifact metadata. */
  insert(a: ArtifactRecord): void;
}

/** Content-addressed bodies: the shared local folder, or an S3-compatible bucket (`SVC_OBJECT_STORE_URL`, issue 21 item 4). */
export interface BlobStore {
  /** Store `bytes`. @returns lowercase hex sha256 and size in bytes. */
  put(bytes: Uint8Array): Awaitable<{ sha256: string; size: number }>;
  /** A read stream of the blob and its size, or null when absent. */
  open(sha256: string): Awaitable<{ stream: NodeJS.ReadableStream; size: number } | null>;
}

/** Everything the audit domain persists, as `store/` opens it. */
export interface AuditPorts {
  tx: WriteTransactions;
  log: AuditLogStore;
  turns: TurnStore;
  events: TurnEventStore;
  envelopes: EnvelopeStore;
  artifacts: ArtifactStore;
}
