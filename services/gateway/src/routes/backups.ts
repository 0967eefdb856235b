/**
 * The `gateway-backups` plugin (issue 19 item 2): the local target `backups`, `/v1/admin/backups*`
 * (the admission chain's admin guard ran before):
 *
 * - `POST /v1/admin/backups {passphrase}` -> 201 `{id, created_at, bytes}`; `GET /v1/admin/backups` -> `{backups}`;
 * - `GET /v1/admin/backups/{id}/download` (the archive), `DELETE /v1/admin/backups/{id}` -> 204;
 * - `POST /v1/admin/backups/import` (the archive as the body) -> 201;
 * - `GET|PUT /v1/admin/backups/schedule {interval_hours, passphrase, keep}`;
 * - `POST /v1/admin/backups/{id}/restore {passphrase, dry_run}` -> 200 (dry run) / 202 (staged).
 *
 * Wires `BackupService` to store/backup-files.ts and the audit service's chain verification.
 *
 * PostgreSQL (issue 21 item 1, `cfg.database` set): the databases are `pg_dump`'s job. An archive
 * then holds what is still a file (the data directory: key files, secrets; the keychain entries) and
 * any `*.sqlite` left in the db folder (none once every store is on PostgreSQL); the create answer
 * says `database_included: false`. The schedule's sealed box is kept in the gateway's schema.
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fp from 'fastify-plugin';
import type { GatewayConfig } from '../../../shared/config.js';
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import { parseHeader } from '../domain/backup-archive.js';
import { BackupService, type BackupPorts } from '../domain/backups.js';
import {
  archiveFile, dataFiles, extractArchive, listArchives, readHeader, readKeychains, snapshotStores, writeArchive, writeJson, type ArchiveSource, type KeychainDump,
} from '../store/backup-files.js';
import { sealedSchedule } from '../store/backup-schedule.js';
import { openPgGatewayStore } from '../store/pg/backup-schedule.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The backup service (jobs for `GET /v1/admin/jobs`, issue 19 item 5). */
    backupService: BackupService;
  }
}

/**
 * Content type of an archive sent to `POST /v1/admin/backups/import` that is streamed to disk (up to
 * the route's 1 GiB body limit); `application/octet-stream` is buffered under the gateway's
 * `maxRequestBodyBytes` like any other body.
 */
export const BACKUP_ARCHIVE_TYPE = 'application/vnd.svc.backup';

/** Keychain services whose entries a backup carries (inference router's provider keys, the runtime's data key). */
export const BACKUP_KEYCHAIN_SERVICES = ['svc-workstation.inference-router', 'svc-workstation.agent-runtime'] as const;

/** Folder of a staged restore under the backup folder, and its marker (read by main/restore-step.ts). */
export const RESTORE_PENDING_DIR = 'restore-pending';
/** Marker file of a staged restore. */
export const RESTORE_PENDING_FILE = 'restore-pending.json';

/** The ports of `BackupService` over the filesystem of `cfg`. */
export function backupPorts(cfg: GatewayConfig, backupDir: string): BackupPorts {
  return {
    async create(id, { header, key }, job) {
      const work = join(backupDir, `.work-${id}`);
      await mkdir(backupDir, { recursive: true, mode: 0o700 });
      try {
        const { names: stores, writePauseMs } = await snapshotStores(cfg.dbDir, join(work, 'db'), job.check);
        job.check();
        const files = (await dataFiles(cfg.dataDir)).filter((f) => !f.startsWith('.work-'));
        const keychain = await readKeychains(BACKUP_KEYCHAIN_SERVICES);
        const sources: ArchiveSource[] = [
          ...stores.map((s) => ({ name: `data/db/${s}`, file: join(work, 'db', s) })),
          ...files.map((f) => ({ name: `data/${f}`, file: join(cfg.dataDir, ...f.split('/')) })),
          { name: 'keychain.json', bytes: Buffer.from(JSON.stringify(keychain)) },
        ];
        return { bytes: await writeArchive(archiveFile(backupDir, id), header, key, sources, job.onBytes), writePauseMs };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    list: () => listArchives(backupDir),
    exists: (id) => existsSync(archiveFile(backupDir, id)),
    remove: (id) => rm(archiveFile(backupDir, id), { force: true }),
    async importArchive(id, body) {
      const file = archiveFile(backupDir, id);
      if (Buffer.isBuffer(body)) {
        const { header } = parseHeader(body.subarray(0, 4096));
        await writeArchiveBytes(file, body);
        return { id, created_at: header.created_at, bytes: body.length };
      }
      try {
        const { header } = await readHeader(body.file);
        await rename(body.file, file);
        return { id, created_at: header.created_at, bytes: (await stat(file)).size };
      } finally {
        await rm(body.file, { force: true });
      }
    },
    async restore(id, passphrase, dryRun) {
      await mkdir(backupDir, { recursive: true, mode: 0o700 });
      const dir = await mkdtemp(join(dryRun ? tmpdir() : backupDir, 'svc-restore-'));
      try {
        const { header, names } = await extractArchive(archiveFile(backupDir, id), passphrase, dir);
        const keys = await auditKeys(cfg, join(dir, 'data'));
        const { verifyRestoredAuditChain } = await import('../../../audit/src/index.js');
        const dbDir = join(dir, 'verify-db');
        const hasAudit = names.includes('data/db/audit.sqlite');
        let audit = { ok: false, checked: 0, failures: [{ check: 'counts', id: null, seq: null, reason: 'the backup holds no audit store' }] as unknown[] };
        if (hasAudit) {
          // Verify a copy: opening migrates, and the restored file must stay as it was taken.
          const { copyFile } = await import('node:fs/promises');
          await mkdir(dbDir, { recursive: true });
          await copyFile(join(dir, 'data', 'db', 'audit.sqlite'), join(dbDir, 'audit.sqlite'));
          audit = await verifyRestoredAuditChain({ dbDir, migrationsDir: cfg.migrationsDir, tenantId: cfg.tenantId, keys });
        }
        await rm(dbDir, { recursive: true, force: true });
        const keychain = JSON.parse(await readFile(join(dir, 'keychain.json'), 'utf8').catch(() => '{}')) as KeychainDump;
        const answer = {
          created_at: header.created_at,
          stores: names.filter((n) => n.startsWith('data/db/')).map((n) => n.slice('data/db/'.length)),
          files: names.length,
          keychain_services: Object.keys(keychain),
          audit_chain: audit,
        };
        if (!dryRun) {
          const pending = join(backupDir, RESTORE_PENDING_DIR);
          await rm(pending, { recursive: true, force: true });
          await rename(dir, pending);
          await writeJson(join(backupDir, RESTORE_PENDING_FILE), { id, created_at: header.created_at, staged_at: new Date().toISOString() });
        }
        return answer;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

async function writeArchiveBytes(file: string, body: Buffer): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  await writeFile(file, body, { mode: 0o600 });
}

/**
 * The audit keys the restored chain is checked under: the configured ones (`cfg.backup.auditKeys`),
 * and the backup's own generated key (`secrets/generated.json` AUDIT_SIGNING_KEY) under the active version.
 */
async function auditKeys(cfg: GatewayConfig, restoredData: string): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  const configured = cfg.backup?.auditKeys ?? [];
  try {
    const gen = JSON.parse(await readFile(join(restoredData, 'secrets', 'generated.json'), 'utf8')) as Record<string, string>;
    const k = gen.AUDIT_SIGNING_KEY;
    if (k && configured[0]) keys.set(configured[0].version, k);
  } catch { /* no generated keys in the backup */ }
  for (const c of configured) if (!keys.has(c.version)) keys.set(c.version, c.key);
  return keys;
}

/** Register the `backups` local target. */
export const backupsPlugin = fp<{ cfg: GatewayConfig }>(async (app, { cfg }) => {
  const backupDir = cfg.backup?.dir ?? join(cfg.dataDir, '..', `${cfg.dataDir.split(/[\\/]/).pop()}-backups`);
  // Issue 21 item 1: on PostgreSQL the schedule's sealed box lives in schema `gateway`, not in a file.
  const pg = cfg.database ? await openPgGatewayStore(cfg.database, cfg.migrationsDir) : null;
  if (pg) {
    app.addHook('onClose', async () => { await pg.close(); });
    app.health.check(async () => ((await pg.ready()) ? true : 'gateway store unreachable'));
  }
  const service = new BackupService(backupPorts(cfg, backupDir), Date.now, sealedSchedule(cfg.dataDir, cfg.backup?.scheduleKeychain ?? true, pg?.scheduleBox));
  // Issue 19 items 2 and 5: a persisted schedule resumes; backup jobs are listed by GET /v1/admin/jobs.
  await service.resume();
  app.decorate('backupService', service);
  app.addHook('onClose', async () => { service.stop(); });
  // Archives sent as BACKUP_ARCHIVE_TYPE stream to disk; the preParsing hook of gateway-proxy bounds them.
  app.addContentTypeParser(BACKUP_ARCHIVE_TYPE, (req, payload, done) => {
    const t = req.gw?.rule?.target;
    if (!(t?.kind === 'local' && t.handler === 'backups' && req.gw!.path === '/v1/admin/backups/import')) {
      done(new DomainError('unsupported_media_type', `${BACKUP_ARCHIVE_TYPE} is only accepted by POST /v1/admin/backups/import`), undefined);
      return;
    }
    mkdirSync(backupDir, { recursive: true, mode: 0o700 });
    const file = join(backupDir, `.incoming-${randomUUID()}.part`);
    const out = createWriteStream(file, { mode: 0o600 });
    const fail = (err: Error): void => { out.destroy(); rmSync(file, { force: true }); done(err, undefined); };
    payload.on('error', fail);
    out.on('error', fail);
    out.on('finish', () => done(null, { file }));
    payload.pipe(out);
  });
  app.gatewayTargets.handle('backups', async (req, reply, path) => {
    const rest = path.slice('/v1/admin/backups'.length).replace(/^\//, '');
    const parts = rest === '' ? [] : rest.split('/');
    const m = req.method;
    const json = (): Record<string, unknown> => {
      const b = req.body;
      if (!Buffer.isBuffer(b) || b.length === 0) return {};
      try {
        const v = JSON.parse(b.toString('utf8')) as unknown;
        if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
      } catch { /* below */ }
      throw new DomainError('invalid_request', 'the body must be a JSON object');
    };
    if (parts.length === 0 && m === 'POST') {
      const r = await service.create(json().passphrase);
      return reply.code(201).send(pg ? { ...r, database_included: false } : r);
    }
    if (parts.length === 0 && m === 'GET') return { backups: await service.list() };
    if (parts[0] === 'import' && parts.length === 1 && m === 'POST') return reply.code(201).send(await service.importArchive(req.body));
    if (parts[0] === 'schedule' && parts.length === 1 && m === 'GET') return { schedule: service.getSchedule() };
    if (parts[0] === 'schedule' && parts.length === 1 && m === 'PUT') return { schedule: await service.setSchedule(json()) };
    const id = parts[0] ?? '';
    if (parts.length === 1 && m === 'DELETE') { await service.remove(id); return reply.code(204).send(); }
    if (parts.length === 2 && parts[1] === 'download' && m === 'GET') {
      if (!(await service.list()).some((b) => b.id === id)) throw notFoundError(`no backup ${id}`);
      return reply.header('content-type', 'application/octet-stream').header('content-disposition', `attachment; filename="${id}.svcbak"`)
        .send(createReadStream(archiveFile(backupDir, id)));
    }
    if (parts.length === 2 && parts[1] === 'restore' && m === 'POST') {
      const r = await service.restore(id, json());
      return reply.code(r.dry_run ? 200 : 202).send(r);
    }
    throw notFoundError(`no route for ${m} ${path}`);
  });
}, { name: 'gateway-backups', fastify: '5.x', dependencies: ['gateway-proxy'] });
