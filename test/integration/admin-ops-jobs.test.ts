/**
 * Issue 19 item 5 on the real stack: `GET /v1/admin/jobs` lists a running connector sync job with
 * its state and progress, says which kinds it covers, and `POST /v1/admin/jobs/{id}/cancel` stops
 * it (the job ends `cancelled`, before every item was synced); a second cancel answers 409; a knowledge
 * batch ingest is listed as a `knowledge_ingest` job with its progress (cancellable while it runs;
 * without an embedding model here it is done at once, so its cancel answers 409), and a user listing
 * knowledge jobs sees only their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, callJson, login, startStack } from '../helpers/stack.js';

test('jobs lists a connector sync job and cancel stops it', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobs-folder-'));
  const FILES = 400;
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n\nThe item number ${i} of a long folder about invoices and pipelines.\n`);
  const stack = await startStack();
  try {
    const admin = await login(stack.url, ADMIN.email, ADMIN.password);
    const created = await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', { kind: 'folder', name: 'Many notes', config: { path: dir } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const sync = await callJson(stack.url, admin, 'POST', '/v1/admin/context/sync', { connector_id: created.body.id });
    assert.equal(sync.status, 202);
    const jobId = `connector_sync:${sync.body.job_id}`;

    const list = await callJson(stack.url, admin, 'GET', '/v1/admin/jobs');
    assert.equal(list.status, 200);
    assert.ok(list.body.covered.includes('connector_sync'));
    assert.ok(list.body.covered.includes('knowledge_ingest'));
    assert.ok(!list.body.not_covered.some((k: { kind: string }) => k.kind === 'knowledge_ingest'));
    const job = list.body.jobs.find((j: { id: string }) => j.id === jobId);
    assert.ok(job, 'the sync job is listed');
    assert.ok(['queued', 'running'].includes(job.state), job.state);
    assert.equal(job.cancellable, true);
    assert.equal(job.service, 'agent-runtime');

    const c = await callJson(stack.url, admin, 'POST', `/v1/admin/jobs/${encodeURIComponent(jobId)}/cancel`);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(c.body.state, 'cancelled');
    // It stays cancelled and stops short of the whole folder.
    await new Promise((r) => setTimeout(r, 1500));
    const after = await callJson(stack.url, admin, 'GET', `/v1/admin/context/sync/${sync.body.job_id}`);
    assert.equal(after.body.state, 'cancelled');
    assert.ok(after.body.progress.done < FILES, `stopped early: ${after.body.progress.done}/${FILES}`);
    const again = await callJson(stack.url, admin, 'POST', `/v1/admin/jobs/${encodeURIComponent(jobId)}/cancel`);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'sync_job_finished');
    assert.equal((await callJson(stack.url, admin, 'POST', '/v1/admin/jobs/nope:1/cancel')).status, 404);
    // A new sync after a cancel runs (the cancel did not wedge the queue).
    const next = await callJson(stack.url, admin, 'POST', '/v1/admin/context/sync', { connector_id: created.body.id });
    assert.equal(next.status, 202);
    assert.notEqual(next.body.job_id, sync.body.job_id);

    // Knowledge batch ingests are jobs too: listed (with chunk progress), cancellable while running; a user lists only their own.
    const batch = await callJson(stack.url, admin, 'POST', '/v1/knowledge/ingest/batch', { records: [{ title: 'Tea', content: 'Green tea is brewed at 80 degrees.' }, { title: 'Coffee', content: 'Espresso is pulled at 9 bar.' }] });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    const kjobs = await callJson(stack.url, admin, 'GET', '/v1/admin/jobs');
    const kjob = kjobs.body.jobs.find((j: { id: string }) => j.id === `knowledge_ingest:${batch.body.job_id}`);
    assert.ok(kjob, JSON.stringify(kjobs.body).slice(0, 600));
    assert.equal(kjob.service, 'knowledge');
    assert.equal(kjob.cancellable, kjob.state === 'running');
    assert.ok(kjob.progress.total >= 2, JSON.stringify(kjob));
    const refuse = await callJson(stack.url, admin, 'POST', `/v1/admin/jobs/${encodeURIComponent(kjob.id)}/cancel`);
    if (kjob.state !== 'running') { assert.equal(refuse.status, 409, JSON.stringify(refuse.body)); assert.equal(refuse.body.code, 'conflict'); }
    assert.equal((await callJson(stack.url, admin, 'GET', '/v1/knowledge/jobs?limit=0')).status, 400);
    const u = await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: 'jobs-u@example.test', display_name: 'U', password: 'jobs-u-long-password', roles: ['user'] });
    assert.equal(u.status, 201, JSON.stringify(u.body));
    const user = await login(stack.url, 'jobs-u@example.test', 'jobs-u-long-password');
    const own = await callJson(stack.url, user, 'POST', '/v1/knowledge/ingest/batch', { records: [{ title: 'Mine', content: 'A user note about kites.' }] });
    assert.equal(own.status, 201);
    const mine = await callJson(stack.url, user, 'GET', '/v1/knowledge/jobs');
    assert.deepEqual(mine.body.jobs.map((j: { job_id: string }) => j.job_id), [own.body.job_id], 'a user sees only their own jobs');
    assert.equal((await callJson(stack.url, user, 'GET', '/v1/admin/jobs')).status, 403);
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
