/**
 * Folder connector sync (issue 18 "Figures"), side by side in one run: 1,000 small Markdown files
 * synced into a real knowledge service (HTTP, multipart ingest, no model) by the connector's own
 * sync engine over a real SQLite store — the first run (every file new) and an incremental run
 * with 10 files changed (ingest the 10, delete their old documents; the 990 others cost one
 * `stat` each). Figures: first-run throughput (files/s), incremental run's time and its cost
 * relative to the first (target: well under 10 %, the changed share is 1 %), and a run with
 * nothing changed (the listing's floor). Baseline beside it: the same first sync of 100 of the
 * files sent through the file route (multipart upload, a fresh parse worker per document), which
 * the connector uses for everything but plain text.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../services/knowledge/src/index.js';
import { openRuntimeStore } from '../services/agent-runtime/src/store/runtime-store.js';
import { ConnectorSync } from '../services/agent-runtime/src/domain/connectors/sync.js';
import { ConnectorAdmin } from '../services/agent-runtime/src/domain/connectors/service.js';
import { FolderSource } from '../services/agent-runtime/src/clients/connector-folder.js';
import { HttpConnectorKnowledge } from '../services/agent-runtime/src/clients/connector-knowledge.js';
import { knowledgeConfig, PRINCIPAL_KEY, REPO_ROOT, TENANT } from '../test/helpers/embedder/service-helpers.js';
import type { Figure } from './audit.js';
import { runIfEntry } from './support/measure.js';

const FILES = 1000;
const BASELINE_FILES = 100;
const CHANGED = 10;

function note(i: number, v: number): string {
  return `# Note ${i}\n\nRevision ${v} of note ${i}. The team discussed item ${i * 7 % 101} and agreed on follow-ups.\n\n- owner: person-${i % 13}\n- status: open\n`;
}

/** Run the benchmark; returns its figures. */
export async function main(): Promise<Figure[]> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-conn-folder-'));
  const rtDir = mkdtempSync(join(tmpdir(), 'bench-conn-rt-'));
  for (let i = 0; i < FILES; i++) writeFileSync(join(folder, `note-${String(i).padStart(4, '0')}.md`), note(i, 1));
  const kcfg = knowledgeConfig({ modelDirs: [] });
  const svc = await start(kcfg);
  const store = openRuntimeStore({ dbDir: rtDir, migrationsDir: join(REPO_ROOT, 'migrations') });
  const log = { info: () => {}, warn: () => {} };
  const deps = {
    store: store.connectors, log, open: async () => new FolderSource(folder),
    sink: new HttpConnectorKnowledge({ baseUrl: `http://127.0.0.1:${svc.port}`, principalKeys: [PRINCIPAL_KEY] }),
  };
  const sync = new ConnectorSync(deps);
  const admin = new ConnectorAdmin(deps);
  try {
    const c = await admin.create(TENANT, { id: 'bench-admin', roles: ['admin'], groups: [] }, { kind: 'folder', name: 'bench', config: { path: folder } });
    const run = async (): Promise<{ ms: number; total: number; failed: number }> => {
      const t0 = performance.now();
      const job = await sync.enqueue(TENANT, c.id);
      await sync.idle();
      const j = await sync.job(TENANT, job.id);
      if (j.state !== 'succeeded') throw new Error(`sync ${j.state}: ${j.error}`);
      return { ms: performance.now() - t0, total: j.progress.total, failed: j.progress.failed };
    };
    const first = await run();
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < CHANGED; i++) writeFileSync(join(folder, `note-${String(i * 97).padStart(4, '0')}.md`), note(i * 97, 2));
    const incr = await run();
    const none = await run();
    if (first.total !== FILES || incr.total !== CHANGED || first.failed || incr.failed) throw new Error(`unexpected totals: ${JSON.stringify({ first, incr })}`);
    // Baseline: 100 files through the file route, same engine and service.
    const baseDir = mkdtempSync(join(tmpdir(), 'bench-conn-base-'));
    for (let i = 0; i < BASELINE_FILES; i++) writeFileSync(join(baseDir, `note-${i}.md`), note(i, 1));
    const baseDeps = { ...deps, open: async () => new FolderSource(baseDir), sink: new HttpConnectorKnowledge({ baseUrl: `http://127.0.0.1:${svc.port}`, principalKeys: [PRINCIPAL_KEY], plainTextRoute: false }) };
    const baseSync = new ConnectorSync(baseDeps);
    const bc = await new ConnectorAdmin(baseDeps).create(TENANT, { id: 'bench-admin', roles: ['admin'], groups: [] }, { kind: 'folder', name: 'baseline', config: { path: baseDir } });
    const tb = performance.now();
    const bj = await baseSync.enqueue(TENANT, bc.id);
    await baseSync.idle();
    const baseMs = performance.now() - tb;
    await baseSync.close();
    rmSync(baseDir, { recursive: true, force: true });
    if ((await baseSync.job(TENANT, bj.id)).state !== 'succeeded') throw new Error('baseline sync failed');
    const baseFps = BASELINE_FILES / (baseMs / 1000);
    const fps = FILES / (first.ms / 1000);
    const ratio = incr.ms / first.ms;
    console.log('\n== connector folder sync (1,000 Markdown files; knowledge over HTTP, no model) ==');
    console.log(`first sync        : ${first.ms.toFixed(0)} ms  (${fps.toFixed(1)} files/s)`);
    console.log(`incremental (10)  : ${incr.ms.toFixed(0)} ms  (${(ratio * 100).toFixed(2)} % of the first; changed share 1 %)`);
    console.log(`nothing changed   : ${none.ms.toFixed(0)} ms  (${(none.ms / first.ms * 100).toFixed(2)} % of the first)`);
    console.log(`baseline: file route (worker per file), ${BASELINE_FILES} files: ${baseMs.toFixed(0)} ms  (${baseFps.toFixed(1)} files/s; ours ${(fps / baseFps).toFixed(1)}x)`);
    return [
      { name: 'connector folder first sync throughput', value: fps, unit: 'files/s' },
      { name: 'connector folder incremental (10 of 1,000 changed) cost vs first', value: ratio * 100, unit: '%', target: '<= 10 %', pass: ratio <= 0.1 },
      { name: 'connector folder unchanged re-sync', value: none.ms, unit: 'ms' },
      { name: 'connector folder first sync via the file route (baseline)', value: baseFps, unit: 'files/s' },
    ];
  } finally {
    await sync.close();
    store.close();
    await svc.close();
    rmSync(folder, { recursive: true, force: true });
    rmSync(rtDir, { recursive: true, force: true });
    rmSync(kcfg.dataDir, { recursive: true, force: true });
  }
}

await runIfEntry(import.meta.url, main);
