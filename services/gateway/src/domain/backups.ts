/**
 * Backups and restore (issue 19 item 2; spec "Gateway-owned admin" `/v1/admin/backups*`): one
 * encrypted archive (domain/backup-archive.ts: scrypt + AES-256-GCM STREAM) of every store at one cut,
 * the data directory's files (objects, secrets, keys) and the OS keychain entries, under `backupDir`.
 *
 * Restore: the archive is decrypted into a folder; its audit chain is verified with the audit
 * service's own checks; a dry run answers that report and removes the folder; a real restore moves
 * it to `<backupDir>/restore-pending` with `restore-pending.json`, applied by main/ at the next start
 * before any store opens (main/restore-step.ts), the replaced data directory kept aside.
 *
 * One operation at a time (409 `backup_busy`). Every backup runs as a job (issue 19 item 5): state,
 * archive bytes written so far, error, cancel (`backupJobs`, `cancelJob`), listed by
 * `GET /v1/admin/jobs`. Passphrases are never logged nor answered; a schedule and its passphrase are
 * kept sealed under a local key (`SchedulePort`, store/backup-schedule.ts) so a restart keeps it.
 */
import { randomBytes } from 'node:crypto';
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import { newHeader } from './backup-archive.js';

/** A stored archive as the routes answer it. */
export interface BackupInfo { id: string; created_at: string; bytes: number }

/** Chain verification report (audit's `ChainReport`). */
export interface ChainReportLike { ok: boolean; checked: number; failures: unknown[] }

/** What a restore answers. */
export interface RestoreAnswer {
  id: string;
  dry_run: boolean;
  /** Real restores: staged, applied when the workstation next starts. */
  staged: boolean;
  created_at: string;
  stores: string[];
  files: number;
  keychain_services: string[];
  audit_chain: ChainReportLike;
}

/** The side effects the service needs (store/backup-files.ts + audit verification, wired in routes/backups.ts). */
export interface BackupPorts {
  /**
   * Write archive `id`. `job.onBytes` sees the archive bytes written so far; `job.check()` throws
   * when the job was cancelled (called between steps). @returns archive bytes and the cut's write pause, ms.
   */
  create(id: string, header: Awaited<ReturnType<typeof newHeader>>, job: { onBytes(n: number): void; check(): void }): Promise<{ bytes: number; writePauseMs: number }>;
  list(): Promise<BackupInfo[]>;
  exists(id: string): boolean;
  remove(id: string): Promise<void>;
  /** `body`: the archive bytes, or a file the body was streamed to (moved into place or removed). */
  importArchive(id: string, body: Buffer | { file: string }): Promise<BackupInfo>;
  /** Decrypt and verify; `dryRun` removes the folder after, else stages it. */
  restore(id: string, passphrase: string, dryRun: boolean): Promise<Omit<RestoreAnswer, 'id' | 'dry_run' | 'staged'>>;
}

/** Smallest accepted passphrase, characters. */
export const MIN_PASSPHRASE = 8;

/** A backup schedule as answered (never its passphrase). */
export interface BackupSchedule { interval_hours: number; keep: number; next_at: string | null }

/** A schedule as persisted (sealed) by `SchedulePort`. */
export interface PersistedSchedule { intervalHours: number; keep: number; passphrase: string; nextAt: number }

/** Where the schedule is kept across restarts (sealed; store/backup-schedule.ts). */
export interface SchedulePort {
  load(): Promise<PersistedSchedule | null>;
  save(s: PersistedSchedule | null): Promise<void>;
}

/** One backup job (issue 19 item 5). `bytes`: archive bytes written so far. */
export interface BackupJob {
  id: string;
  trigger: 'manual' | 'scheduled';
  state: 'running' | 'done' | 'failed' | 'cancelled';
  bytes: number;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** How long writers to the stores were held at the cut, ms (once the cut is taken). */
  write_pause_ms: number | null;
}

/** Jobs kept in memory for the list (newest). */
const KEEP_JOBS = 50;

class JobCancelled extends Error {}

/** The backup service. */
export class BackupService {
  private busy = false;
  private timer: NodeJS.Timeout | null = null;
  private schedule: PersistedSchedule | null = null;
  private readonly jobs: BackupJob[] = [];
  private readonly cancels = new Map<string, () => void>();

  constructor(private readonly ports: BackupPorts, private readonly clock: () => number = Date.now, private readonly schedulePort: SchedulePort | null = null) {}

  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.busy) throw new DomainError('backup_busy', 'a backup or restore is already running');
    this.busy = true;
    try { return await fn(); } finally { this.busy = false; }
  }

  /** Take a backup as a job. @throws `invalid_request` (short passphrase), `backup_busy`, `backup_cancelled` (409). */
  async create(passphrase: unknown, trigger: BackupJob['trigger'] = 'manual'): Promise<BackupInfo> {
    const p = checkPassphrase(passphrase);
    return this.exclusive(async () => {
      const created = new Date(this.clock()).toISOString();
      const id = `bk_${created.replace(/[-:.TZ]/g, '').slice(0, 14)}_${randomBytes(4).toString('hex')}`;
      const job: BackupJob = { id, trigger, state: 'running', bytes: 0, error: null, started_at: created, finished_at: null, write_pause_ms: null };
      this.jobs.unshift(job);
      this.jobs.splice(KEEP_JOBS);
      let cancelled = false;
      this.cancels.set(id, () => { cancelled = true; });
      try {
        const r = await this.ports.create(id, await newHeader(id, created, p), {
          onBytes: (n) => { job.bytes = n; if (cancelled) throw new JobCancelled(); },
          check: () => { if (cancelled) throw new JobCancelled(); },
        });
        Object.assign(job, { state: 'done', bytes: r.bytes, write_pause_ms: Math.round(r.writePauseMs * 100) / 100 });
        return { id, created_at: created, bytes: r.bytes };
      } catch (err) {
        const wasCancelled = cancelled || err instanceof JobCancelled;
        job.state = wasCancelled ? 'cancelled' : 'failed';
        job.error = wasCancelled ? 'cancelled by an admin' : (err instanceof DomainError ? err.message : 'the backup failed');
        if (wasCancelled) throw new DomainError('backup_cancelled', 'the backup was cancelled; no archive was kept');
        throw err;
      } finally {
        job.finished_at = new Date(this.clock()).toISOString();
        this.cancels.delete(id);
      }
    });
  }

  /** Backup jobs, newest first (running, then the recent finished ones). */
  backupJobs(): BackupJob[] { return this.jobs.map((j) => ({ ...j })); }

  /** Cancel running job `id`. @throws `not_found`, `job_not_cancellable` (409: it has finished). */
  cancelJob(id: string): BackupJob {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) throw notFoundError(`no backup job ${id}`);
    const cancel = this.cancels.get(id);
    if (!cancel) throw new DomainError('job_not_cancellable', `backup job ${id} has finished (${job.state})`);
    cancel();
    return { ...job };
  }

  /** The archives, newest first. */
  list(): Promise<BackupInfo[]> { return this.ports.list(); }

  /** @throws `not_found`. */
  async remove(id: string): Promise<void> {
    this.known(id);
    await this.ports.remove(id);
  }

  /** Store an uploaded archive. @throws `archive_tampered` when it is not an archive. */
  async importArchive(body: unknown): Promise<BackupInfo> {
    const id = `bk_import_${randomBytes(6).toString('hex')}`;
    const streamed = body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { file?: unknown }).file === 'string';
    if (streamed) return this.ports.importArchive(id, body as { file: string });
    if (!Buffer.isBuffer(body) || body.length === 0) throw new DomainError('invalid_request', 'send the archive file as the request body');
    return this.ports.importArchive(id, body);
  }

  /** Restore `id`. @throws `not_found`, `bad_passphrase`, `archive_tampered`, `backup_busy`. */
  async restore(id: string, body: { passphrase?: unknown; dry_run?: unknown }): Promise<RestoreAnswer> {
    this.known(id);
    if (typeof body.passphrase !== 'string' || body.passphrase.length === 0) throw new DomainError('invalid_request', 'passphrase is required');
    const dryRun = body.dry_run === undefined ? true : body.dry_run === true;
    if (body.dry_run !== undefined && typeof body.dry_run !== 'boolean') throw new DomainError('invalid_request', 'dry_run must be a boolean');
    const passphrase = body.passphrase;
    return this.exclusive(async () => {
      const r = await this.ports.restore(id, passphrase, dryRun);
      return { id, dry_run: dryRun, staged: !dryRun, ...r };
    });
  }

  /** The schedule, or null. */
  getSchedule(): BackupSchedule | null {
    const s = this.schedule;
    return s ? { interval_hours: s.intervalHours, keep: s.keep, next_at: new Date(s.nextAt).toISOString() } : null;
  }

  /** Resume the persisted schedule (at start); a run that fell due while stopped runs at once. */
  async resume(): Promise<void> {
    const s = await this.schedulePort?.load().catch(() => null) ?? null;
    if (!s) return;
    this.schedule = s;
    this.arm();
  }

  /**
   * Set (interval_hours > 0) or clear (interval_hours 0) the schedule; it and its passphrase are kept
   * sealed (`SchedulePort`) so a restart keeps it running. `keep` scheduled archives are kept (default 7).
   */
  async setSchedule(body: { interval_hours?: unknown; passphrase?: unknown; keep?: unknown }): Promise<BackupSchedule | null> {
    const h = body.interval_hours;
    if (typeof h !== 'number' || !Number.isFinite(h) || h < 0 || h > 24 * 365) throw new DomainError('invalid_request', 'interval_hours must be a number from 0 (off) to 8760');
    if (h === 0) {
      this.stop();
      this.schedule = null;
      await this.schedulePort?.save(null);
      return null;
    }
    const keep = body.keep === undefined ? 7 : body.keep;
    if (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 1 || keep > 1000) throw new DomainError('invalid_request', 'keep must be an integer from 1 to 1000');
    const passphrase = checkPassphrase(body.passphrase);
    this.stop();
    this.schedule = { intervalHours: h, keep, passphrase, nextAt: this.clock() + h * 3_600_000 };
    await this.schedulePort?.save(this.schedule);
    this.arm();
    return this.getSchedule();
  }

  /** Set a timer for the schedule's next run (timers cap at ~24.8 days: re-armed on wake-up). */
  private arm(): void {
    const s = this.schedule;
    if (!s) return;
    const wait = Math.min(Math.max(0, s.nextAt - this.clock()), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.clock() + 5 < s.nextAt) { this.arm(); return; }
      void this.scheduledRun().finally(() => { if (this.schedule === s) this.arm(); });
    }, wait);
    this.timer.unref();
  }

  private async scheduledRun(): Promise<void> {
    const s = this.schedule;
    if (!s) return;
    s.nextAt = this.clock() + s.intervalHours * 3_600_000;
    await this.schedulePort?.save(s).catch(() => undefined);
    try {
      await this.create(s.passphrase, 'scheduled');
      const all = await this.list();
      for (const old of all.slice(s.keep)) await this.ports.remove(old.id);
    } catch { /* recorded in the job list; the next run tries again */ }
  }

  /** Stop the schedule's timer (close). */
  stop(): void { if (this.timer) clearTimeout(this.timer); this.timer = null; }

  private known(id: string): void {
    if (!/^bk_[A-Za-z0-9_]{1,64}$/.test(id) || !this.ports.exists(id)) throw notFoundError(`no backup ${id}`);
  }
}

function checkPassphrase(p: unknown): string {
  if (typeof p !== 'string' || p.length < MIN_PASSPHRASE || p.length > 1024) {
    throw new DomainError('invalid_request', `passphrase must be a string of ${MIN_PASSPHRASE} to 1024 characters`);
  }
  return p;
}
