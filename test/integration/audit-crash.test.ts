/**
 * A writer killed with SIGKILL in the middle of a burst of appends loses no acknowledged row, and
 * the chain and seq stay intact after restart (WAL, synchronous=NORMAL, ack after commit).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { start } from '../../services/audit/src/index.js';
import { ADMIN, REPO_ROOT, SERVICE, TENANT, auditConfig, call, removeDir } from '../helpers/audit.js';

test('SIGKILL mid-burst loses no acknowledged row', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-crash-'));
  t.after(() => removeDir(dir));
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/test/fixtures/audit/child-writer.js'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  const [line] = await once(createInterface({ input: child.stdout! }), 'line') as [string];
  const base = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;

  const acked = new Map<number, number>(); // n -> seq
  let n = 0;
  let stop = false;
  const headers = SERVICE();
  const worker = async () => {
    while (!stop) {
      const mine = n++;
      try {
        const r = await call(base, 'POST', '/v1/audit', headers, { action: 'burst', resource_id: String(mine), detail: { n: mine } });
        if (r.status === 201) acked.set(mine, r.body.seq as number);
      } catch { return; }
    }
  };
  const workers = Array.from({ length: 32 }, worker);
  while (acked.size < 1500) await new Promise((r) => setTimeout(r, 5));
  child.kill('SIGKILL');
  stop = true;
  await once(child, 'exit');
  await Promise.allSettled(workers);
  assert.ok(acked.size >= 1500);

  const svc = await start(auditConfig({}, dir));
  t.after(() => svc.close());
  const b2 = `http://127.0.0.1:${svc.port}`;
  const v = await call(b2, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN());
  assert.equal(v.body.ok, true, JSON.stringify(v.body.failures?.slice(0, 3)));
  assert.ok(v.body.checked >= acked.size);
  // Every acknowledged row is there, at the seq it was acknowledged with.
  const rows = new Map<number, number>();
  for (let offset = 0; ; offset += 500) {
    const page = await call(b2, 'GET', `/v1/admin/audit?action=burst&limit=500&offset=${offset}`, ADMIN());
    for (const r of page.body.items as Array<{ seq: number; detail: { n: number } }>) rows.set(r.detail.n, r.seq);
    if (!page.body.next_cursor) break;
  }
  for (const [k, seq] of acked) assert.equal(rows.get(k), seq, `acknowledged row ${k} (seq ${seq}) lost`);
  // The chain continues after restart.
  const next = await call(b2, 'POST', '/v1/audit', SERVICE(), { action: 'after.crash' });
  assert.equal(next.body.seq, v.body.checked + 1);
  const v2 = await call(b2, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN());
  assert.equal(v2.body.ok, true);
});
