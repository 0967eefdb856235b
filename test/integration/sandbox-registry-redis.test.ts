/**
 * The sandbox session registry on Redis (issue 21 item 3): two sandbox instances of one deployment
 * (same data directory, same Redis, the real Docker engine and image). A session lives in the
 * instance that first ran it; calls for it through the other instance are forwarded there (its
 * Python state answers), the admin list of either instance shows every instance's sessions, a
 * destroy through the other instance removes it, and a starting instance keeps a live peer's
 * containers. When the owner stops, the session is claimed afresh by the instance that is asked.
 * Skipped (with the reason) when no Docker engine answers or redis-server is not installed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../../services/sandbox/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { callJson, stampedHeaders, testPrincipal } from '../helpers/principals.js';
import { removeDir } from '../helpers/service-configs.js';
import { dockerMissing, sandboxConfig } from '../helpers/sandbox.js';
import { hasRedis, startRedis, type TestRedis } from '../helpers/scale-out.js';

const TENANT = 'acme';
const skip = (await dockerMissing()) ?? (hasRedis ? false : 'redis-server is not installed');
const alice = stampedHeaders(testPrincipal('u-alice', ['user'], TENANT));
const admin = stampedHeaders(testPrincipal('u-admin', ['admin'], TENANT));

let redis: TestRedis | null = null;
const dir = mkdtempSync(join(tmpdir(), 'sandbox-registry-'));
const running: RunningService[] = [];

async function instance(): Promise<{ url: string; svc: RunningService }> {
  const cfg = sandboxConfig({ tenantId: TENANT }, { dataDir: dir, redisUrl: redis!.url });
  const svc = await start(cfg, { watchdogGraceMs: 1500 });
  running.push(svc);
  return { url: `http://127.0.0.1:${svc.port}`, svc };
}
const exec = (url: string, session: string, code: string): ReturnType<typeof callJson> =>
  callJson(url, 'POST', '/execute', alice, { code, language: 'python', tenant_id: TENANT, session_id: session });

before(async () => { if (!skip) redis = await startRedis(); });
after(async () => {
  for (const s of running) await s.close().catch(() => undefined);
  redis?.stop();
  removeDir(dir);
});

test('two sandbox instances share sessions through the Redis registry', { skip }, async () => {
  const a = await instance();
  const first = await exec(a.url, 's1', 'x = 41');
  assert.equal(first.status, 200, JSON.stringify(first.body));

  // B starts on the same deployment: A's live container is kept, not cleaned up as a leftover.
  const b = await instance();
  const onA = await exec(a.url, 's1', 'print(x)');
  assert.equal(onA.body.stdout, '41\n', JSON.stringify(onA.body));
  assert.equal(onA.body.restarted, false);

  // Through B, s1's calls reach A's container.
  const viaB = await exec(b.url, 's1', 'print(x + 1)');
  assert.equal(viaB.status, 200, JSON.stringify(viaB.body));
  assert.equal(viaB.body.stdout, '42\n');
  assert.equal(viaB.body.restarted, false);

  // A session first used through B lives in B; A forwards to it.
  assert.equal((await exec(b.url, 's2', 'y = 7')).status, 200);
  assert.equal((await exec(a.url, 's2', 'print(y * 6)')).body.stdout, '42\n');

  // Either instance's admin list shows both sessions, each once.
  for (const url of [a.url, b.url]) {
    const list = await callJson(url, 'GET', '/sessions', admin);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const ids = (list.body.sessions as Array<{ session_id: string }>).map((s) => s.session_id).sort();
    assert.deepEqual(ids, ['s1', 's2']);
  }

  // Destroying s2 through A removes B's container; the next call starts afresh.
  assert.equal((await callJson(a.url, 'DELETE', `/sessions/${TENANT}/s2`, admin)).status, 204);
  const fresh = await exec(a.url, 's2', "print('y' in globals())");
  assert.equal(fresh.body.stdout, 'False\n', JSON.stringify(fresh.body));

  // A stops: its sessions are released; B claims s1 afresh when asked.
  await a.svc.close();
  running.splice(running.indexOf(a.svc), 1);
  const after = await exec(b.url, 's1', "print('x' in globals())");
  assert.equal(after.status, 200, JSON.stringify(after.body));
  assert.equal(after.body.stdout, 'False\n');
});
