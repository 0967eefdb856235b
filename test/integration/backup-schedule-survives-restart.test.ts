/**
 * Issue 19 item 2 (gap: a schedule's passphrase lived in memory, so a restart cleared it): the
 * schedule and its passphrase are kept sealed under a local key (OS keychain where one answers,
 * else a 0600 key file in the data directory's secrets/); after a restart the schedule is still
 * set and a scheduled backup runs (a `backup` job with trigger `scheduled`) and opens with the
 * passphrase set before the restart. The passphrase never appears in answers or in the sealed file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';

const PASS = 'scheduled backup passphrase 42';
const t0 = Date.now();
const step = (m: string): void => { if (process.env.H19_DEBUG) process.stderr.write(`[${Date.now() - t0} ms] ${m}\n`); };

test('a backup schedule and its passphrase survive a restart and keep running', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-sched-'));
  const backups = mkdtempSync(join(tmpdir(), 'svc-sched-bk-'));
  const env = { SVC_DATA_DIR: dataDir, SVC_BACKUP_DIR: backups };
  let stack: TestStack | null = await startStack(env);
  try {
    step('started');
    let admin = await login(stack.url, ADMIN.email, ADMIN.password);
    // 0.002 h = 7.2 s between runs.
    const set = await callJson(stack.url, admin, 'PUT', '/v1/admin/backups/schedule', { interval_hours: 0.002, passphrase: PASS, keep: 3 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.ok(!JSON.stringify(set.body).includes(PASS));
    const sealed = join(dataDir, 'secrets', 'backup-schedule.sealed');
    assert.ok(existsSync(sealed));
    assert.equal(statSync(sealed).mode & 0o777, 0o600);
    assert.ok(!readFileSync(sealed, 'utf8').includes(PASS), 'the passphrase is sealed, not written in clear');
    const keyFile = join(dataDir, 'secrets', 'backup-schedule.key');
    if (existsSync(keyFile)) assert.equal(statSync(keyFile).mode & 0o777, 0o600);

    step('set');
    await stack.stop();
    step('stopped');
    stack = await startStack(env);
    step('restarted');
    admin = await login(stack.url, ADMIN.email, ADMIN.password);
    const got = await callJson(stack.url, admin, 'GET', '/v1/admin/backups/schedule');
    assert.equal(got.body.schedule.interval_hours, 0.002, JSON.stringify(got.body));
    assert.equal(got.body.schedule.keep, 3);

    let job: { id: string; state: string; detail: { trigger: string } } | undefined;
    for (let i = 0; i < 120 && job?.state !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const jobs = (await callJson(stack.url, admin, 'GET', '/v1/admin/jobs')).body.jobs as Array<typeof job & object>;
      job = jobs.find((j) => j.id.startsWith('backup:') && j.detail.trigger === 'scheduled');
    }
    step(`job ${JSON.stringify(job)}`);
    assert.equal(job?.state, 'done', 'a scheduled backup ran after the restart');
    const id = job!.id.slice('backup:'.length);
    const dry = await callJson(stack.url, admin, 'POST', `/v1/admin/backups/${id}/restore`, { passphrase: PASS, dry_run: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.audit_chain.ok, true);

    // Clearing the schedule removes the sealed file.
    const off = await callJson(stack.url, admin, 'PUT', '/v1/admin/backups/schedule', { interval_hours: 0 });
    assert.equal(off.body.schedule, null);
    assert.equal(existsSync(sealed), false);
  } finally {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(backups, { recursive: true, force: true });
  }
});
