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
 * One operation at a time (409 `backup_busy`). Passphrases are never logged nor kept on disk; a
 * schedule's passphrase lives in memory only.
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
  create(id: string, header: Awaited<ReturnType<typeof newHeader>>): Promise<number>;
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

/** A backup schedule (in memory). */
export interface BackupSchedule { interval_hours: number; keep: number; next_at: string | null }

/** The backup service. */
export class BackupService {
  private busy = false;
  private timer: NodeJS.Timeout | null = null;
  private schedule: { intervalHours: number; keep: number; passphrase: string; nextAt: number } | null = null;

  constructor(private readonly ports: BackupPorts, private readonly clock: () => number = Date.now) {}

  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.busy) throw new DomainError('backup_busy', 'a backup or restore is already running');
    this.busy = true;
    try { return await fn(); } finally { this.busy = false; }
  }

  /** Take a backup. @throws `invalid_request` (short passphrase), `backup_busy`. */
  async create(passphrase: unknown): Promise<BackupInfo> {
    const p = checkPassphrase(passphrase);
    return this.exclusive(async () => {
      const created = new Date(this.clock()).toISOString();
      const id = `bk_${created.replace(/[-:.TZ]/g, '').slice(0, 14)}_${randomBytes(4).toString('hex')}`;
      const bytes = await this.ports.create(id, await newHeader(id, created, p));
      return { id, created_at: created, bytes };
    });
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

  /**
   * Set (interval_hours > 0) or clear (interval_hours 0) the schedule; the passphrase is held in
   * memory only, so a restart clears it. `keep` archives of the schedule are kept (default 7).
   */
  setSchedule(body: { interval_hours?: unknown; passphrase?: unknown; keep?: unknown }): BackupSchedule | null {
    const h = body.interval_hours;
    if (typeof h !== 'number' || !Number.isFinite(h) || h < 0 || h > 24 * 365) throw new DomainError('invalid_request', 'interval_hours must be a number from 0 (off) to 8760');
    if (this.timer) { clearInterval(this.timer); this.timer = null; }
    if (h === 0) { this.schedule = null; return null; }
    const keep = body.keep === undefined ? 7 : body.keep;
    if (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 1 || keep > 1000) throw new DomainError('invalid_request', 'keep must be an integer from 1 to 1000');
    const passphrase = checkPassphrase(body.passphrase);
    const ms = h * 3_600_000;
    this.schedule = { intervalHours: h, keep, passphrase, nextAt: this.clock() + ms };
    this.timer = setInterval(() => { void this.scheduledRun(); }, ms);
    this.timer.unref();
    return this.getSchedule();
  }

  private async scheduledRun(): Promise<void> {
    const s = this.schedule;
    if (!s) return;
    s.nextAt = this.clock() + s.intervalHours * 3_600_000;
    try {
      await this.create(s.passphrase);
      const all = await this.list();
      for (const old of all.slice(s.keep)) await this.ports.remove(old.id);
    } catch { /* the next run tries again; GET /v1/admin/backups shows what exists */ }
  }

  /** Stop the schedule (close). */
  stop(): void { if (this.timer) clearInterval(this.timer); this.timer = null; }

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
