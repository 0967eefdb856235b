/**
 * The turn-event outbox on PostgreSQL (issue 21 item 1; issue 11 item 7): table `turn_outbox` in the
 * emitting service's schema (`gateway`, `agent_runtime`), shared by every instance of that service
 * (two gateways, two runtimes). A `TurnEventQueue` for the turn-event client, like the SQLite
 * outbox (outbox-store.ts), with the differences a shared network database brings:
 *
 * - Ownership: each row names its `owner` (this process's instance id) and a lease (`lease_until`,
 *   Unix ms of the database clock). An instance ships and deletes only its own rows and renews its
 *   lease every `sweepMs`. An instance that dies stops renewing; once its lease ran out, another
 *   instance claims the rows in one statement (`FOR UPDATE SKIP LOCKED`, owner and lease set
 *   together), so two sweeping instances never claim one row and each event is shipped by one
 *   instance. A graceful close releases what is left at once (lease 0). Audit keys events on
 *   (tenant, turn, event id), so an instance that stalled past its lease and ships a row another one
 *   claimed causes a duplicate audit drops, never a loss.
 * - Timing: the queue interface is synchronous (the client's `commit` runs in the gateway's
 *   `onSend`), so `append` queues the rows in memory and writes them in one INSERT at once, in the
 *   background, in order; `durable()` resolves when everything appended so far is stored. A write
 *   that fails is retried every second (the events stay in memory and are still delivered by this
 *   process; only their crash-safety waits) and reported through `onError`.
 * - Migrations: `migrations/turn-outbox/pg/` are applied with their own bookkeeping table
 *   (`turn_outbox_migrations`), under the stack's migration lock, so they never collide with the
 *   service's own migration numbers in the same schema.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { listMigrations } from '../db/open.js';
import { PgDb } from '../db/pg/db.js';
import { openPgPool } from '../db/pg/pool.js';
import type { PgSettings } from '../db/pg/settings.js';
import type { QueuedEvent, TurnEventQueue } from './event-queue.js';
import type { TurnEvent } from './turn-events.js';

/** The database clock in Unix ms (leases compare against it, so hosts' clocks do not matter). */
const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';
/** The stack's migration lock (services/shared/db/pg/migrate.ts takes the same key). */
const MIGRATION_LOCK = [0x737663, 0x6d696772] as const;

/** Options of `openPgOutbox`. */
export interface PgOutboxOptions {
  /** How long a row stays this instance's without a renewal, ms (default 15,000). */
  leaseMs?: number;
  /** How often the lease is renewed and expired rows are claimed, ms (default leaseMs / 3). */
  sweepMs?: number;
  /** Rows claimed per sweep statement (default 5,000). */
  claimBatch?: number;
  /** No claiming while this many events wait in memory (default 200,000, the client's bound). */
  maxHeld?: number;
  /** This instance's id (default a random UUID). */
  owner?: string;
  /** A write, renewal or claim failed (no secrets in `err`: the pool redacts its URL). */
  onError?: (err: Error, what: 'insert' | 'delete' | 'renew' | 'claim' | 'release') => void;
  /** Rows of a dead instance were claimed (the wiring asks the client to send now). */
  onAdopt?: (count: number) => void;
}

/** The PostgreSQL outbox: a `TurnEventQueue` plus its asynchronous edges. */
export interface PgTurnOutbox extends TurnEventQueue {
  /** This instance's id (the `owner` of its rows). */
  readonly owner: string;
  /** Resolves when every event appended so far is stored (false: a write failed and is being retried). */
  durable(): Promise<boolean>;
  /** Claim rows whose lease ran out now. @returns how many were claimed. */
  adopt(): Promise<number>;
  /** Store what is left, release this instance's rows (lease 0) and end the pool; idempotent. */
  closeAsync(): Promise<void>;
  /** Test seam: stop as a killed process would (no final write, no release, pool ended). */
  abandon(): Promise<void>;
}

interface Entry { position: number; event: TurnEvent; at: number; saved: boolean; removed: boolean }

/**
 * Open the outbox in `settings.schema` (creating the schema and table when absent) and claim the
 * rows of instances whose lease ran out.
 * @throws Error when the server cannot be reached or the migration fails (the pool is closed first).
 */
export async function openPgOutbox(settings: PgSettings, migrationsDir: string, opts: PgOutboxOptions = {}): Promise<PgTurnOutbox> {
  const db = new PgDb(openPgPool({ ...settings, poolMax: Math.min(settings.poolMax ?? 4, 4) }), settings.schema);
  try {
    await migrateOutbox(db, settings.schema, migrationsDir);
  } catch (err) {
    await db.close();
    throw err;
  }
  const outbox = new PgOutbox(db, opts);
  await outbox.adopt();
  outbox.startSweeps();
  return outbox;
}

async function migrateOutbox(db: PgDb, schema: string, migrationsDir: string): Promise<void> {
  const migrations = listMigrations(migrationsDir, join('turn-outbox', 'pg'));
  await db.tx(async () => {
    await db.query('SELECT pg_advisory_xact_lock($1, $2)', [...MIGRATION_LOCK]);
    await db.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await db.exec(`SET LOCAL search_path = ${schema}, public`);
    await db.exec(`CREATE TABLE IF NOT EXISTS turn_outbox_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const [cur] = await db.query<{ v: number | null }>('SELECT max(version) AS v FROM turn_outbox_migrations');
    const current = cur?.v ?? 0;
    const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
    if (current > latest) throw new Error(`the turn outbox of ${schema} is at version ${current}, newer than this build (${latest})`);
    for (const m of migrations) {
      if (m.version <= current) continue;
      await db.exec(m.sql);
      await db.exec('INSERT INTO turn_outbox_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
  });
}

class PgOutbox implements PgTurnOutbox {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly sweepMs: number;
  private readonly claimBatch: number;
  private readonly maxHeld: number;
  private items: Entry[] = [];
  private next = 1;
  private unsaved: Entry[] = [];
  private toDelete: string[] = [];
  private writing: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping: Promise<unknown> | null = null;
  private open = true;
  private abandoned = false;
  private closing: Promise<void> | null = null;

  constructor(private readonly db: PgDb, private readonly opts: PgOutboxOptions) {
    this.owner = opts.owner ?? randomUUID();
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.sweepMs = opts.sweepMs ?? Math.max(50, Math.floor(this.leaseMs / 3));
    this.claimBatch = opts.claimBatch ?? 5000;
    this.maxHeld = opts.maxHeld ?? 200_000;
  }

  get size(): number { return this.items.length; }
  get isOpen(): boolean { return this.open; }

  append(events: readonly TurnEvent[], nowMs: number): number {
    if (!this.open) throw new Error('the turn outbox is closed');
    let position = 0;
    for (const event of events) {
      const e: Entry = { position: this.next++, event, at: Math.floor(nowMs), saved: false, removed: false };
      this.items.push(e);
      this.unsaved.push(e);
      position = e.position;
    }
    if (events.length) this.kick();
    return position;
  }

  head(limit: number): QueuedEvent[] {
    return this.items.slice(0, limit).map((e) => ({ position: e.position, event: e.event }));
  }

  removeThrough(position: number): number {
    let n = 0;
    while (n < this.items.length && this.items[n]!.position <= position) n++;
    return this.forget(this.items.splice(0, n));
  }

  dropOldest(count: number): number {
    return this.forget(this.items.splice(0, Math.max(0, count)));
  }

  dropOlderThan(cutoffMs: number): number {
    const keep: Entry[] = []; const gone: Entry[] = [];
    for (const e of this.items) (e.at >= cutoffMs ? keep : gone).push(e);
    if (!gone.length) return 0;
    this.items = keep;
    return this.forget(gone);
  }

  close(): void { void this.closeAsync(); }

  async durable(): Promise<boolean> {
    while (this.writing) await this.writing;
    return this.unsaved.length === 0;
  }

  async adopt(): Promise<number> {
    if (!this.open || this.items.length >= this.maxHeld) return 0;
    const run = this.claim();
    this.sweeping = run;
    try { return await run; } finally { if (this.sweeping === run) this.sweeping = null; }
  }

  closeAsync(): Promise<void> {
    this.closing ??= (async () => {
      this.open = false;
      this.stopTimers();
      await this.sweeping?.catch(() => undefined);
      this.kick();
      await this.durable();
      try {
        await this.db.exec('UPDATE turn_outbox SET lease_until = 0 WHERE owner = $1', [this.owner]);
      } catch (err) { this.opts.onError?.(err as Error, 'release'); }
      await this.db.close();
    })();
    return this.closing;
  }

  async abandon(): Promise<void> {
    this.open = false;
    this.abandoned = true;
    this.stopTimers();
    this.closing ??= (async () => {
      await this.sweeping?.catch(() => undefined);
      while (this.writing) await this.writing;
      await this.db.close();
    })();
    return this.closing;
  }

  /** Renew the lease and claim expired rows every `sweepMs` (the timer does not hold the process). */
  startSweeps(): void {
    this.sweeper = setInterval(() => { void this.sweep(); }, this.sweepMs);
    this.sweeper.unref();
  }

  private async sweep(): Promise<void> {
    if (!this.open || this.sweeping) return;
    try {
      await this.db.exec(`UPDATE turn_outbox SET lease_until = ${NOW_MS} + $2 WHERE owner = $1`, [this.owner, this.leaseMs]);
    } catch (err) { this.opts.onError?.(err as Error, 'renew'); return; }
    await this.adopt();
  }

  private async claim(): Promise<number> {
    let rows: Array<{ seq: number; event_id: string; created_ms: number; event_json: string }>;
    try {
      rows = await this.db.query(`WITH c AS (
          SELECT seq FROM turn_outbox WHERE lease_until < ${NOW_MS} ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)
        UPDATE turn_outbox t SET owner = $1, lease_until = ${NOW_MS} + $3 FROM c WHERE t.seq = c.seq
        RETURNING t.seq, t.event_id, t.created_ms, t.event_json`, [this.owner, Math.min(this.claimBatch, this.maxHeld - this.items.length), this.leaseMs]);
    } catch (err) { this.opts.onError?.(err as Error, 'claim'); return 0; }
    if (!rows.length) return 0;
    rows.sort((a, b) => a.seq - b.seq);
    for (const r of rows) {
      this.items.push({ position: this.next++, event: JSON.parse(r.event_json) as TurnEvent, at: r.created_ms, saved: true, removed: false });
    }
    if (!this.open) return rows.length;
    this.opts.onAdopt?.(rows.length);
    return rows.length;
  }

  private stopTimers(): void {
    if (this.sweeper) { clearInterval(this.sweeper); this.sweeper = null; }
    if (this.retry) { clearTimeout(this.retry); this.retry = null; }
  }

  /** Removed entries: stored ones are deleted in the database, unstored ones are simply not written. */
  private forget(gone: Entry[]): number {
    if (!gone.length) return 0;
    for (const e of gone) {
      e.removed = true;
      if (e.saved) this.toDelete.push(e.event.event_id);
    }
    this.unsaved = this.unsaved.filter((e) => !e.removed);
    this.kick();
    return gone.length;
  }

  /** Start the writer unless it runs (it loops until nothing is left). */
  private kick(): void {
    if (this.writing || this.abandoned) return;
    if (!this.unsaved.length && !this.toDelete.length) return;
    this.writing = this.write().finally(() => { this.writing = null; });
  }

  private async write(): Promise<void> {
    while (this.unsaved.length || this.toDelete.length) {
      const batch = this.unsaved; this.unsaved = [];
      if (batch.length) {
        try {
          await this.db.exec(`INSERT INTO turn_outbox (event_id, created_ms, event_json, owner, lease_until)
            SELECT e, c, j, $4, ${NOW_MS} + $5 FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS x(e, c, j, n) ORDER BY n`,
          [batch.map((e) => e.event.event_id), batch.map((e) => e.at), batch.map((e) => JSON.stringify(e.event)), this.owner, this.leaseMs]);
        } catch (err) {
          this.unsaved = [...batch.filter((e) => !e.removed), ...this.unsaved];
          return this.failed(err, 'insert');
        }
        for (const e of batch) {
          e.saved = true;
          if (e.removed) this.toDelete.push(e.event.event_id);
        }
      }
      const del = this.toDelete; this.toDelete = [];
      if (del.length) {
        try {
          await this.db.exec('DELETE FROM turn_outbox WHERE owner = $1 AND event_id = ANY($2::text[])', [this.owner, del]);
        } catch (err) {
          this.toDelete = [...del, ...this.toDelete];
          return this.failed(err, 'delete');
        }
      }
    }
  }

  private failed(err: unknown, what: 'insert' | 'delete'): void {
    this.opts.onError?.(err as Error, what);
    if (this.retry || !this.open) return;
    this.retry = setTimeout(() => { this.retry = null; this.kick(); }, 1000);
    this.retry.unref();
  }
}
