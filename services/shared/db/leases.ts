/**
 * Leases for background work when several instances of a service share one database (issue 21:
 * "several gateways and runtimes", one PostgreSQL). A lease is a named row (`svc_leases` in the
 * service's schema, `migrations/<service>/pg/`) held by one instance until `until_ms`, renewed by its
 * holder; the database clock decides, so hosts' clocks do not matter. Work that must run once per
 * deployment (the connector schedule and its jobs, the OAuth token refresher, knowledge's start-up
 * recovery) runs on the holder only; another instance takes over once the holder stopped renewing
 * (a crash) or released it (a graceful stop).
 *
 * On SQLite (the desktop) there is one process per database, so `SOLE_INSTANCE` always holds.
 *
 * `Leadership` keeps one lease: it tries at start and every `renewMs`, and tells its owner when it
 * gained or lost the lease.
 */
import { randomUUID } from 'node:crypto';
import type { PgDb } from './pg/db.js';

/** Named leases of one service's database. */
export interface Leases {
  /** This instance's id (the `owner` of the leases it holds). */
  readonly owner: string;
  /**
   * Take or renew lease `name` for `ttlMs`, unless another live instance holds it.
   * @returns true when this instance holds it now. @throws Error when the database cannot be reached.
   */
  hold(name: string, ttlMs: number): Promise<boolean>;
  /** Give lease `name` up at once when this instance holds it (a graceful stop). */
  release(name: string): Promise<void>;
  /** Who holds `name` and until when (Unix ms of the database clock), or null when nobody does. */
  holder(name: string): Promise<{ owner: string; until_ms: number } | null>;
}

/** The desktop: one process per database, so every lease is this instance's. */
export const SOLE_INSTANCE: Leases = Object.freeze({
  owner: 'sole-instance',
  hold: () => Promise.resolve(true),
  release: () => Promise.resolve(),
  holder: () => Promise.resolve(null),
});

/** The database clock in Unix ms. */
const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * Leases in table `svc_leases` of `db`'s schema: one statement takes a free or expired lease, or
 * renews this instance's own, atomically (INSERT … ON CONFLICT DO UPDATE … WHERE).
 * @param owner this instance's id (default a random UUID).
 */
export function pgLeases(db: PgDb, owner: string = randomUUID()): Leases {
  return {
    owner,
    async hold(name, ttlMs) {
      const rows = await db.query<{ owner: string }>(
        `INSERT INTO svc_leases (name, owner, until_ms) VALUES ($1, $2, ${NOW_MS} + $3)
         ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, until_ms = EXCLUDED.until_ms
         WHERE svc_leases.owner = EXCLUDED.owner OR svc_leases.until_ms < ${NOW_MS}
         RETURNING owner`,
        [name, owner, Math.max(1, Math.round(ttlMs))],
      );
      return rows.length === 1;
    },
    async release(name) {
      await db.exec('UPDATE svc_leases SET until_ms = 0 WHERE name = $1 AND owner = $2', [name, owner]);
    },
    async holder(name) {
      const rows = await db.query<{ owner: string; until_ms: string }>(`SELECT owner, until_ms FROM svc_leases WHERE name = $1 AND until_ms >= ${NOW_MS}`, [name]);
      const r = rows[0];
      return r ? { owner: r.owner, until_ms: Number(r.until_ms) } : null;
    },
  };
}

/** Options of `Leadership`. */
export interface LeadershipOptions {
  /** How long the lease lasts without a renewal, ms (default 15,000: a crashed holder's work resumes elsewhere after this). */
  ttlMs?: number;
  /** How often it is renewed or tried, ms (default ttlMs / 3). */
  renewMs?: number;
  /** This instance gained the lease: start the work. */
  onGain: () => void;
  /** This instance lost it (not renewed in time: a stall or the database unreachable): stop the work. */
  onLose: () => void;
  /** A renewal failed (the database is unreachable); the lease is kept until it would expire. */
  onError?: (err: Error) => void;
}

/** One lease kept by this instance when it can: work runs on exactly one instance at a time. */
export class Leadership {
  private timer: NodeJS.Timeout | null = null;
  private leading = false;
  /** Database-independent deadline of the current hold (local monotonic ms): past it, the lease is treated as lost. */
  private heldUntil = 0;
  private stopped = false;
  private trying: Promise<void> | null = null;
  private readonly ttlMs: number;
  private readonly renewMs: number;

  constructor(private readonly leases: Leases, readonly name: string, private readonly o: LeadershipOptions) {
    this.ttlMs = o.ttlMs ?? 15_000;
    this.renewMs = o.renewMs ?? Math.max(50, Math.floor(this.ttlMs / 3));
  }

  /** Whether this instance holds the lease now. */
  get held(): boolean { return this.leading; }

  /** Try now, then every `renewMs` (timer unref'd). @returns once the first try settled. */
  async start(): Promise<void> {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => { void this.attempt(); }, this.renewMs);
    this.timer.unref();
    await this.attempt();
  }

  /** One try (also what the timer runs); overlapping tries share one. */
  attempt(): Promise<void> {
    this.trying ??= this.tryOnce().finally(() => { this.trying = null; });
    return this.trying;
  }

  private async tryOnce(): Promise<void> {
    if (this.stopped) return;
    const asked = performance.now();
    let got: boolean;
    try {
      got = await this.leases.hold(this.name, this.ttlMs);
    } catch (err) {
      this.o.onError?.(err as Error);
      // Unreachable: keep leading only while the last hold is surely still ours.
      if (this.leading && performance.now() > this.heldUntil) this.lose();
      return;
    }
    if (this.stopped) return;
    if (got) {
      this.heldUntil = asked + this.ttlMs;
      if (!this.leading) { this.leading = true; this.o.onGain(); }
    } else if (this.leading) {
      this.lose();
    }
  }

  private lose(): void {
    this.leading = false;
    this.o.onLose();
  }

  /** Stop trying; release the lease when held (the work must already be stopped). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.trying;
    if (this.leading) {
      this.leading = false;
      await this.leases.release(this.name).catch((err: unknown) => { this.o.onError?.(err as Error); });
    }
  }
}

/** Options of `holdSole`. */
export interface HoldSoleOptions {
  /** Lease time, ms (default 15,000). */
  ttlMs?: number;
  /** How long to wait for a holder that stopped renewing (a crashed instance) to expire, ms (default ttlMs + 2,000). */
  waitMs?: number;
  /** The lease was lost while running (renewals failed past its expiry, or another instance took it). */
  onLose: () => void;
  onError?: (err: Error) => void;
}

/**
 * Hold lease `name` for as long as this instance runs: for a service that runs as one instance per
 * database (knowledge, whose start-up recovery and embedding pump assume they are alone). Waits up
 * to `waitMs` for a crashed holder's lease to run out; the returned `Leadership` keeps renewing
 * until its `stop()` (the service's close), which releases it.
 * @throws Error naming the holder when another live instance keeps the lease past `waitMs`.
 */
export async function holdSole(leases: Leases, name: string, o: HoldSoleOptions): Promise<Leadership> {
  const ttlMs = o.ttlMs ?? 15_000;
  let gained = false;
  const lead = new Leadership(leases, name, {
    ttlMs, onGain: () => { gained = true; }, onLose: () => { if (gained) o.onLose(); }, ...(o.onError ? { onError: o.onError } : {}),
  });
  await lead.start();
  const deadline = performance.now() + (o.waitMs ?? ttlMs + 2000);
  while (!lead.held && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.min(500, ttlMs / 4)));
    await lead.attempt();
  }
  if (lead.held) return lead;
  const h = await leases.holder(name).catch(() => null);
  await lead.stop();
  throw new Error(`another instance (${h?.owner ?? 'unknown'}) holds "${name}" on this database; this service runs as one instance per database`);
}

/** What `leadWork` runs and logs. */
export interface LeadWork {
  /** Start the work here (this instance gained the lease, or it is the only one). */
  start: () => void;
  /** Stop it here (the lease went to another instance). */
  stop: () => void;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/**
 * Run `work` on the instance holding lease `name`: at once on the desktop (`SOLE_INSTANCE`), else
 * under a `Leadership` that starts and stops it as the lease comes and goes, logging each change.
 * @returns how to stop trying (releases the lease; a service's background stopper), or undefined on the desktop.
 */
export function leadWork(leases: Leases, name: string, work: LeadWork, opts: Omit<LeadershipOptions, 'onGain' | 'onLose' | 'onError'> = {}): (() => Promise<void>) | undefined {
  if (leases === SOLE_INSTANCE) { work.start(); return undefined; }
  const lead = new Leadership(leases, name, {
    ...opts,
    onGain: () => { work.log.info({ lease: name }, 'this instance holds the lease and runs its work'); work.start(); },
    onLose: () => { work.log.warn({ lease: name }, 'lease lost; another instance runs its work'); work.stop(); },
    onError: (err) => work.log.warn({ err: err.message, lease: name }, 'lease renewal failed'),
  });
  void lead.start();
  return () => lead.stop();
}
