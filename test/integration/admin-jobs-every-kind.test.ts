/**
 * Issue 19 item 5 (gap: backups, sealing passes and memory consolidation had no jobs): on the real
 * stack `GET /v1/admin/jobs` covers every kind the issue names and leaves nothing `not_covered`;
 * a running backup is listed as a job with bytes written and is cancelled through
 * `POST /v1/admin/jobs/{id}/cancel` (the backup answers 409 `backup_cancelled`, no archive is kept);
 * a finished backup job shows its size and the cut's write pause; audit's sealing passes are listed
 * (`GET /v1/admin/audit/seal-passes`) and an unknown pass's cancel answers 404; a memory consolidation
 * pass is a `memory_consolidation` job and a finished one's cancel answers 409.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, callJson, login, startStack } from '../helpers/stack.js';

interface Job { id: string; kind: string; state: string; cancellable: boolean; progress: { done: number; unit?: string } | null; error: string | null; detail?: Record<string, unknown> }

test('jobs cover backups, sealing passes and memory consolidation, each with cancel', { timeout: 180_000 }, async () => {
  const stack = await startStack();
  try {
    const admin = await login(stack.url, ADMIN.email, ADMIN.password);
    const jobs = async (): Promise<{ jobs: Job[]; covered: string[]; not_covered: unknown[]; unreachable: string[] }> => (await callJson(stack.url, admin, 'GET', '/v1/admin/jobs')).body;
    const l0 = await jobs();
    assert.deepEqual([...l0.covered].sort(), ['audit_seal', 'backup', 'connector_sync', 'knowledge_ingest', 'memory_consolidation']);
    assert.deepEqual(l0.not_covered, []);
    assert.deepEqual(l0.unreachable, []);

    // A backup large enough to still run when the cancel arrives (300 MiB of object bytes).
    mkdirSync(join(stack.dataDir, 'objects'), { recursive: true });
    writeFileSync(join(stack.dataDir, 'objects', 'big.bin'), Buffer.alloc(300 * 1024 * 1024, 7));
    const pending = callJson(stack.url, admin, 'POST', '/v1/admin/backups', { passphrase: 'jobs test passphrase' });
    let running: Job | undefined;
    for (let i = 0; i < 500 && !running; i++) {
      running = (await jobs()).jobs.find((j) => j.kind === 'backup' && j.state === 'running' && (j.progress?.done ?? 0) > 0);
      if (!running) await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(running, 'the running backup is listed with bytes written');
    assert.equal(running.cancellable, true);
    assert.equal(running.progress!.unit, 'bytes');
    const c = await callJson(stack.url, admin, 'POST', `/v1/admin/jobs/${encodeURIComponent(running.id)}/cancel`);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const answered = await pending;
    assert.equal(answered.status, 409, JSON.stringify(answered.body));
    assert.equal(answered.body.code, 'backup_cancelled');
    const after = (await jobs()).jobs.find((j) => j.id === running!.id)!;
    assert.equal(after.state, 'cancelled');
    assert.equal(after.cancellable, false);
    assert.deepEqual((await callJson(stack.url, admin, 'GET', '/v1/admin/backups')).body.backups, [], 'no archive kept');
    const again = await callJson(stack.url, admin, 'POST', `/v1/admin/jobs/${encodeURIComponent(running.id)}/cancel`);
    assert.equal(again.status, 409); assert.equal(again.body.code, 'job_not_cancellable');

    // A finished backup job: done, its archive size, the cut's write pause.
    const done = await callJson(stack.url, admin, 'POST', '/v1/admin/backups', { passphrase: 'jobs test passphrase' });
    assert.equal(done.status, 201, JSON.stringify(done.body));
    const dj = (await jobs()).jobs.find((j) => j.id === `backup:${done.body.id}`)!;
    assert.equal(dj.state, 'done');
    assert.equal(dj.progress!.done, done.body.bytes);
    assert.equal(typeof dj.detail!.write_pause_ms, 'number');

    // Sealing passes: audit records them; the list is reachable through the gateway; cancel of an unknown pass is 404.
    await new Promise((r) => setTimeout(r, 1500)); // TURN_SEAL_INTERVAL_SECONDS=1 in tests
    const seal = await callJson(stack.url, admin, 'GET', '/v1/admin/audit/seal-passes');
    assert.equal(seal.status, 200, JSON.stringify(seal.body));
    assert.ok(seal.body.totals.passes >= 1, JSON.stringify(seal.body));
    assert.equal((await callJson(stack.url, admin, 'POST', '/v1/admin/jobs/audit_seal:seal_nope/cancel')).status, 404);

    // Memory consolidation: a pass on request is a job; once finished it cannot be cancelled.
    const cons = await callJson(stack.url, admin, 'POST', '/v1/memory/consolidate', {});
    assert.equal(cons.status, 200, JSON.stringify(cons.body));
    const mj = (await jobs()).jobs.find((j) => j.kind === 'memory_consolidation');
    assert.ok(mj, 'the consolidation pass is listed');
    assert.equal(mj.state, 'done');
    assert.equal(mj.detail!.target, 'scope');
    const mc = await callJson(stack.url, admin, 'POST', `/v1/admin/jobs/${encodeURIComponent(mj.id)}/cancel`);
    assert.equal(mc.status, 409, JSON.stringify(mc.body));
    const user = await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: 'jobs-every@example.test', display_name: 'U', password: 'jobs-every-long-password', roles: ['user'] });
    assert.equal(user.status, 201);
    const ut = await login(stack.url, 'jobs-every@example.test', 'jobs-every-long-password');
    assert.equal((await callJson(stack.url, ut, 'POST', `/v1/admin/jobs/${encodeURIComponent(running.id)}/cancel`)).status, 403);
  } finally {
    await stack.stop();
  }
});
