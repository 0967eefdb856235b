/**
 * Connector sync jobs survive a stop (issue 18 item 3): a job cut short by `close()` stays
 * `running` in the real SQLite store; a new sync engine on the reopened store resumes it and
 * ingests only the items not yet done, then finishes it `succeeded`. The sink records its calls
 * (knowledge itself is covered by connector-folder.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRuntimeStore } from '../../services/agent-runtime/src/store/runtime-store.js';
import { ConnectorSync } from '../../services/agent-runtime/src/domain/connectors/sync.js';
import { ConnectorAdmin } from '../../services/agent-runtime/src/domain/connectors/service.js';
import { FolderSource } from '../../services/agent-runtime/src/clients/connector-folder.js';
import type { KnowledgeSink } from '../../services/agent-runtime/src/domain/connectors/ports.js';
import { REPO_ROOT } from '../helpers/embedder/service-helpers.js';

test('an interrupted sync job resumes after a restart and redoes nothing already done', { timeout: 60_000 }, async () => {
  const folder = mkdtempSync(join(tmpdir(), 'conn-resume-'));
  const db = mkdtempSync(join(tmpdir(), 'conn-resume-db-'));
  for (let i = 0; i < 20; i++) writeFileSync(join(folder, `f${String(i).padStart(2, '0')}.md`), `# F${i}\n\ntext ${i}\n`);
  const ingested: string[] = [];
  let gate: Promise<void> | null = null;
  let n = 0;
  const sink: KnowledgeSink = {
    async ingest(_t, _o, part) {
      if (gate) await gate;
      ingested.push(part.path_or_uid);
      return { document_id: `doc-${++n}`, error: null };
    },
    async remove() {},
  };
  const log = { info: () => {}, warn: () => {} };
  const cfg = { dbDir: db, migrationsDir: join(REPO_ROOT, 'migrations') };
  try {
    let store = openRuntimeStore(cfg);
    const deps = { store: store.connectors, log, sink, open: async () => new FolderSource(folder) };
    const c = await new ConnectorAdmin(deps).create('acme', { id: 'admin-1', roles: ['admin'], groups: [] }, { kind: 'folder', name: 'f', config: { path: folder } });
    let release!: () => void;
    const sync1 = new ConnectorSync(deps);
    const job = await sync1.enqueue('acme', c.id);
    // Let 6 items through, then hold the sink and stop the engine.
    gate = new Promise<void>((r) => { release = r; });
    const held = gate;
    gate = null;
    const wait = async (): Promise<void> => { while (ingested.length < 6) await new Promise((r) => setTimeout(r, 2)); gate = held; };
    await wait();
    const closing = sync1.close();
    release();
    await closing;
    const cut = (await store.connectors.job('acme', job.id))!;
    assert.equal(cut.state, 'running', 'a job cut short stays running');
    const doneBefore = (await store.connectors.documents('acme', c.id)).length;
    assert.ok(doneBefore >= 6 && doneBefore < 20, `some items done (${doneBefore})`);
    store.close();

    store = openRuntimeStore(cfg);
    const before = ingested.length;
    const sync2 = new ConnectorSync({ ...deps, store: store.connectors });
    assert.equal(await sync2.resume(), 1);
    await sync2.idle();
    const after = (await store.connectors.job('acme', job.id))!;
    assert.equal(after.state, 'succeeded');
    assert.equal((await store.connectors.documents('acme', c.id)).length, 20);
    assert.equal(ingested.length - before, 20 - doneBefore, 'only the remaining items were ingested');
    assert.equal(new Set(ingested).size, ingested.length, 'no item ingested twice');
    await sync2.close();
    store.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
    rmSync(db, { recursive: true, force: true });
  }
});

test('the schedule queues a connector when its interval has passed, and not before', { timeout: 30_000 }, async () => {
  const folder = mkdtempSync(join(tmpdir(), 'conn-sched-'));
  const db = mkdtempSync(join(tmpdir(), 'conn-sched-db-'));
  writeFileSync(join(folder, 'a.md'), '# A\n\ntext\n');
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const ingested: string[] = [];
  const sink: KnowledgeSink = { async ingest(_t, _o, part) { ingested.push(part.path_or_uid); return { document_id: 'd', error: null }; }, async remove() {} };
  const store = openRuntimeStore({ dbDir: db, migrationsDir: join(REPO_ROOT, 'migrations') });
  try {
    const deps = { store: store.connectors, log: { info: () => {}, warn: () => {} }, sink, open: async () => new FolderSource(folder), now: () => new Date(clock) };
    const admin = new ConnectorAdmin(deps);
    const c = await admin.create('acme', { id: 'admin-1', roles: ['admin'], groups: [] }, { kind: 'folder', name: 'f', config: { path: folder }, schedule_minutes: 5 });
    await admin.create('acme', { id: 'admin-1', roles: ['admin'], groups: [] }, { kind: 'folder', name: 'on demand', config: { path: folder } });
    const sync = new ConnectorSync(deps);
    await sync.tick();
    await sync.idle();
    assert.deepEqual(ingested, ['a.md'], 'a scheduled connector never synced is due at once; an on-demand one is not');
    assert.ok((await store.connectors.get('acme', c.id))!.last_sync_at);
    writeFileSync(join(folder, 'b.md'), '# B\n\ntext\n');
    clock += 4 * 60_000;
    await sync.tick();
    await sync.idle();
    assert.deepEqual(ingested, ['a.md'], 'not due before 5 minutes');
    clock += 2 * 60_000;
    await sync.tick();
    await sync.idle();
    assert.deepEqual(ingested, ['a.md', 'b.md']);
    await sync.close();
  } finally {
    store.close();
    rmSync(folder, { recursive: true, force: true });
    rmSync(db, { recursive: true, force: true });
  }
});
