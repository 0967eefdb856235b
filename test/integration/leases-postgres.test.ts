/**
 * Leases for background work when several instances share one PostgreSQL database (issue 21;
 * services/shared/db/leases.ts), against a real throwaway cluster:
 * - one holder at a time; renewal by the holder; release hands over at once; expiry hands over after the TTL;
 * - `Leadership` tells its owner when it gained and lost the lease;
 * - `holdSole` refuses a second instance, naming the holder, and waits out a crashed holder;
 * - two connector-sync engines on one runtime schema: jobs queued through either run once, on the
 *   leader; a cancel written through the follower stops the leader's job between items; when the
 *   leader goes, the follower takes over and finishes the job it left.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdSole, Leadership, pgLeases } from '../../services/shared/db/leases.js';
import { openPgRuntimeStore, type PgRuntimeStore } from '../../services/agent-runtime/src/store/pg/index.js';
import { ConnectorSync } from '../../services/agent-runtime/src/domain/connectors/sync.js';
import { ConnectorAdmin } from '../../services/agent-runtime/src/domain/connectors/service.js';
import { FolderSource } from '../../services/agent-runtime/src/clients/connector-folder.js';
import type { KnowledgeSink } from '../../services/agent-runtime/src/domain/connectors/ports.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MIGRATIONS = join(process.cwd(), 'migrations');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, fn: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
const ADMIN = { id: 'admin-1', roles: ['admin'], groups: [] };
const log = { info: () => {}, warn: () => {} };

describe('leases on PostgreSQL', { skip: postgresMissing() ?? false }, () => {
  let pg: TestPostgres;
  let a: PgRuntimeStore;
  let b: PgRuntimeStore;
  before(async () => {
    pg = await startPostgres();
    a = await openPgRuntimeStore({ url: pg.url, schema: 'agent_runtime' }, MIGRATIONS);
    b = await openPgRuntimeStore({ url: pg.url, schema: 'agent_runtime' }, MIGRATIONS);
  });
  after(async () => { await a?.close(); await b?.close(); await pg?.stop(); });

  test('one holder at a time: renewals keep it, release hands it over at once, expiry after the TTL', async () => {
    const la = pgLeases(a.db, 'instance-a');
    const lb = pgLeases(b.db, 'instance-b');
    assert.equal(await la.hold('job-x', 60_000), true);
    assert.equal(await lb.hold('job-x', 60_000), false, 'held by a');
    assert.equal(await la.hold('job-x', 60_000), true, 'the holder renews');
    assert.equal((await lb.holder('job-x'))?.owner, 'instance-a');
    assert.equal(await lb.hold('other', 60_000), true, 'leases are independent by name');
    await la.release('job-x');
    assert.equal(await la.holder('job-x'), null);
    assert.equal(await lb.hold('job-x', 200), true, 'released: the next instance takes it at once');
    assert.equal(await la.hold('job-x', 60_000), false);
    await sleep(300);
    assert.equal(await la.hold('job-x', 60_000), true, 'expired (not renewed): taken over');
    await lb.release('job-x');
    assert.equal((await la.holder('job-x'))?.owner, 'instance-a', 'a release by a non-holder changes nothing');
  });

  test('Leadership: gained by one instance, taken over when the holder stops renewing', async () => {
    const events: string[] = [];
    const mk = (store: PgRuntimeStore, who: string) => new Leadership(pgLeases(store.db, who), 'leader-test', {
      ttlMs: 400, renewMs: 50, onGain: () => events.push(`${who}+`), onLose: () => events.push(`${who}-`),
    });
    const one = mk(a, 'one');
    const two = mk(b, 'two');
    await one.start();
    await two.start();
    assert.equal(one.held, true);
    assert.equal(two.held, false);
    await sleep(200);
    assert.equal(two.held, false, 'renewed in time: still one');
    await one.stop();
    await until('two takes over after the release', () => two.held);
    assert.deepEqual(events, ['one+', 'two+']);
    await two.stop();
  });

  test('holdSole: a second instance refuses to start naming the holder; a crashed holder is waited out', async () => {
    const first = await holdSole(pgLeases(a.db, 'knowledge-1'), 'sole-test', { ttlMs: 500, onLose: () => {} });
    await assert.rejects(holdSole(pgLeases(b.db, 'knowledge-2'), 'sole-test', { ttlMs: 500, waitMs: 300, onLose: () => {} }), /knowledge-1.*one instance per database/);
    // A crash: the holder stops renewing without releasing (its timer cleared, no release).
    (first as unknown as { stopped: boolean; timer: NodeJS.Timeout | null }).stopped = true;
    clearInterval((first as unknown as { timer: NodeJS.Timeout }).timer);
    const started = Date.now();
    const second = await holdSole(pgLeases(b.db, 'knowledge-2'), 'sole-test', { ttlMs: 500, waitMs: 3000, onLose: () => {} });
    assert.equal(second.held, true);
    assert.ok(Date.now() - started < 3000);
    await second.stop();
  });

  test('two connector-sync engines on one database: jobs run once, on the leader; a cancel through the follower stops it; the follower takes over', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'conn-leases-'));
    for (let i = 0; i < 12; i++) writeFileSync(join(folder, `f${String(i).padStart(2, '0')}.md`), `# F${i}\n\ntext ${i}\n`);
    const ingested: Array<{ by: string; path: string }> = [];
    let gate: Promise<void> | null = null;
    const sink = (by: string): KnowledgeSink => ({
      async ingest(_t, _o, part) {
        if (gate) await gate;
        ingested.push({ by, path: part.path_or_uid });
        return { document_id: `${by}-${part.path_or_uid}`, error: null };
      },
      async remove() {},
    });
    const deps = (store: PgRuntimeStore, by: string) => ({ store: store.connectors, log, sink: sink(by), open: async () => new FolderSource(folder), follower: true });
    const syncA = new ConnectorSync(deps(a, 'A'));
    const syncB = new ConnectorSync(deps(b, 'B'));
    const leadA = new Leadership(pgLeases(a.db, 'A'), 'connector-sync', { ttlMs: 600, renewMs: 100, onGain: () => { void syncA.lead(50); }, onLose: () => syncA.follow() });
    const leadB = new Leadership(pgLeases(b.db, 'B'), 'connector-sync', { ttlMs: 600, renewMs: 100, onGain: () => { void syncB.lead(50); }, onLose: () => syncB.follow() });
    try {
      await leadA.start();
      await leadB.start();
      assert.equal(leadA.held, true);
      assert.equal(leadB.held, false);
      const c = await new ConnectorAdmin(deps(a, 'A')).create('acme', ADMIN, { kind: 'folder', name: 'f', config: { path: folder } });

      // Queued through the follower: the leader runs it, once.
      const job1 = await syncB.enqueue('acme', c.id);
      await until('job 1 done', async () => (await b.connectors.job('acme', job1.id))?.state === 'succeeded');
      assert.equal(ingested.length, 12);
      assert.ok(ingested.every((i) => i.by === 'A'), 'only the leader ran the job');

      // Cancelled through the follower while the leader runs it: it stops between items and stays cancelled.
      for (let i = 0; i < 12; i++) writeFileSync(join(folder, `f${String(i).padStart(2, '0')}.md`), `# F${i}\n\nchanged text ${i}\n`);
      let release!: () => void;
      gate = new Promise<void>((r) => { release = r; });
      const job2 = await syncB.enqueue('acme', c.id);
      await until('job 2 running on A', async () => (await a.connectors.job('acme', job2.id))?.state === 'running');
      await syncB.cancel('acme', job2.id);
      gate = null;
      release();
      await syncA.idle();
      await sleep(100);
      const cancelled = (await a.connectors.job('acme', job2.id))!;
      assert.equal(cancelled.state, 'cancelled', 'the leader did not overwrite the cancel');
      assert.ok(ingested.length - 12 < 12, `the leader stopped early (${ingested.length - 12} of 12 changed items)`);

      // The leader goes away mid-job (its engine stops, lease released): the follower takes over and finishes it.
      const before = ingested.length;
      for (let i = 0; i < 12; i++) writeFileSync(join(folder, `f${String(i).padStart(2, '0')}.md`), `# F${i}\n\nthird text ${i}\n`);
      gate = new Promise<void>((r) => { release = r; });
      const job3 = await syncA.enqueue('acme', c.id);
      await until('job 3 running on A', async () => (await a.connectors.job('acme', job3.id))?.state === 'running');
      const closing = syncA.close();
      gate = null;
      release();
      await closing;
      await leadA.stop();
      await until('job 3 done by B', async () => (await b.connectors.job('acme', job3.id))?.state === 'succeeded');
      assert.ok(leadB.held);
      assert.ok(ingested.slice(before).some((i) => i.by === 'B'), 'the follower finished the job');
      assert.equal((await b.connectors.documents('acme', c.id)).length, 12);
    } finally {
      await syncA.close();
      await syncB.close();
      await leadA.stop();
      await leadB.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
