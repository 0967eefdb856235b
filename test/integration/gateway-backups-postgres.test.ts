/**
 * Issue 21 item 1, gateway: with `database` set the backup schedule's sealed box lives in schema
 * `gateway` (no `backup-schedule.sealed` file), survives a restart and never holds the passphrase
 * in clear; a backup of a PostgreSQL deployment holds what is still a file (the databases are
 * pg_dump's job) and says so (`database_included: false`); no `.sqlite` file is created (auth on
 * PostgreSQL too).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import type { GatewayConfig } from '../../services/shared/config.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ISSUER, authConfig } from '../helpers/auth.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';

const missing = postgresMissing();
const PASS = 'postgres deployment backup passphrase 7';

describe('gateway backups on PostgreSQL', { skip: missing ?? false }, () => {
  let pg: TestPostgres;
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-pg-'));
  const backupDir = mkdtempSync(join(tmpdir(), 'svc-gw-pg-bk-'));
  let auth: RunningService;
  let gwCfg: GatewayConfig;

  before(async () => {
    pg = await startPostgres();
    const authCfg = { ...authConfig(dir), database: { url: pg.url, schema: 'auth' } };
    auth = await startAuth(authCfg);
    const authUrl = `http://127.0.0.1:${auth.port}`;
    const serviceUrls = Object.fromEntries(SERVICE_NAMES.map((n) => [n, n === 'auth' ? authUrl : 'http://127.0.0.1:9'])) as Record<ServiceName, string>;
    gwCfg = {
      ...authCfg, service: 'gateway', logLevel: 'warn', serviceUrls, database: { url: pg.url, schema: 'gateway' },
      maxRequestBodyBytes: 65536, rateLimitIpPerMinute: 100_000, rateLimitTenantPerMinute: 100_000, redisUrl: null,
      trustedIssuers: [{ issuer: ISSUER, jwksUrl: `${authUrl}/.well-known/jwks.json`, algorithms: ['ES256'] }],
      audience: 'svc-frontend', adminEmailAllowlist: [], groupRoleMap: {}, trustProxy: false, allowedHosts: [], tokenCacheMax: 1000, rendererDir: null,
      backup: { dir: backupDir, auditKeys: [], scheduleKeychain: false },
    };
  });
  after(async () => {
    await auth?.close();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(backupDir, { recursive: true, force: true });
  });

  const client = (gw: RunningService) => async (method: string, path: string, opts: { body?: unknown; token?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`http://127.0.0.1:${gw.port}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
  };

  test('the schedule is kept in schema gateway across a restart; a backup holds the files and says the database is not in it', async () => {
    let gw = await startGateway(gwCfg);
    try {
      const call = client(gw);
      assert.equal((await call('GET', '/readyz')).status, 200);
      const login = await call('POST', '/v1/auth/login', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const token = login.body.access_token as string;
      const set = await call('PUT', '/v1/admin/backups/schedule', { token, body: { interval_hours: 24, passphrase: PASS, keep: 2 } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(set.body.schedule.interval_hours, 24);
      const rows = await pg.sql<{ sealed: string }>('SELECT sealed FROM gateway.backup_schedule');
      assert.equal(rows.length, 1, 'the sealed schedule is a row of schema gateway');
      assert.ok(!rows[0]!.sealed.includes(PASS), 'the passphrase is sealed, not stored in clear');
      assert.equal(existsSync(join(dir, 'secrets', 'backup-schedule.sealed')), false, 'no schedule file');

      const made = await call('POST', '/v1/admin/backups', { token, body: { passphrase: PASS } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.database_included, false);
      const dry = await call('POST', `/v1/admin/backups/${made.body.id}/restore`, { token, body: { passphrase: PASS, dry_run: true } });
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.deepEqual(dry.body.stores, [], 'no database file in the archive');
      assert.ok(dry.body.files > 0, 'the data directory files are in it');
    } finally {
      await gw.close();
    }
    gw = await startGateway(gwCfg);
    try {
      const call = client(gw);
      const token = (await call('POST', '/v1/auth/login', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body.access_token as string;
      const got = await call('GET', '/v1/admin/backups/schedule', { token });
      assert.equal(got.body.schedule?.interval_hours, 24, JSON.stringify(got.body));
      assert.equal(got.body.schedule.keep, 2);
      const off = await call('PUT', '/v1/admin/backups/schedule', { token, body: { interval_hours: 0 } });
      assert.equal(off.body.schedule, null);
      assert.equal((await pg.sql('SELECT 1 FROM gateway.backup_schedule')).length, 0);
    } finally {
      await gw.close();
    }
    const sqlite = existsSync(gwCfg.dbDir) ? readdirSync(gwCfg.dbDir).filter((n) => n.includes('.sqlite')) : [];
    assert.deepEqual(sqlite, [], 'no SQLite store file');
  });
});
