/**
 * Backup under chat load (issue 19 item 2 "Figures"), side by side in one run: a workstation with
 * 5,000 documents (knowledge rows with their text and chunks, and one 8 KiB object each) and
 * 100,000 audit rows (written straight into the stores, in a tenant of their own so the live chain
 * is untouched), the real stack with the scripted LLM. Measured: the backup's duration
 * (`POST /v1/admin/backups` to its 201) and chat p50 (`POST /v1/chat`, one client) during the
 * backup vs just before it. Target: p50 during <= 1.5x p50 before.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { startScriptedLlm } from '../test/helpers/scripted-llm.js';
import { ADMIN, login, startStack } from '../test/helpers/stack.js';
import { pct } from './support/measure.js';
import type { Figure } from './audit.js';

const DOCS = 5000;
const AUDIT_ROWS = 100_000;

/** Seed the stores of a running stack directly (WAL: the services keep their connections). */
function seed(dataDir: string): void {
  const k = new Database(join(dataDir, 'db', 'knowledge.sqlite'));
  k.pragma('busy_timeout = 10000');
  const body = 'The workstation keeps its receipts. '.repeat(100);
  k.transaction(() => {
    const doc = k.prepare(`INSERT INTO documents (id, tenant_id, title, source_type, filename, mime_type, bytes, owner_user_id, creator_user_id, visibility_mode, status, content, created_at, updated_at)
      VALUES (?, 'bench', ?, 'file', ?, 'text/plain', ?, 'u_bench', 'u_bench', 'private', 'indexed', ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`);
    const chunk = k.prepare('INSERT INTO chunks (document_id, chunk_index, content) VALUES (?, ?, ?)');
    for (let i = 0; i < DOCS; i++) {
      const id = `bench${String(i).padStart(21, '0')}`;
      doc.run(id, `Document ${i}`, `doc-${i}.txt`, body.length, body);
      for (let c = 0; c < 4; c++) chunk.run(id, c, body.slice(c * 900, c * 900 + 900));
    }
  })();
  k.close();
  const objects = join(dataDir, 'objects', 'bench-seed');
  mkdirSync(objects, { recursive: true });
  for (let i = 0; i < DOCS; i++) writeFileSync(join(objects, `doc-${i}.bin`), randomBytes(8192));
  const a = new Database(join(dataDir, 'db', 'audit.sqlite'));
  a.pragma('busy_timeout = 10000');
  a.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${AUDIT_ROWS})
    INSERT INTO audit_log (tenant_id, seq, timestamp, user_id, action, resource_type, resource_id, detail_type, detail, previous_hash, signed_payload, signature, key_version)
    SELECT 'bench', i, '2026-01-01T00:00:00Z', 'u_bench', 'document.read', 'document', 'doc-' || i, 'access',
      '{"path":"/v1/docs/' || i || '","status":200,"bytes":1024,"note":"benchmark row with a typical small detail"}',
      hex(randomblob(32)), '{"seq":' || i || ',"tenant_id":"bench","note":"benchmark row with a typical small detail"}', hex(randomblob(32)), 'v1' FROM n`).run();
  a.close();
}

/** Run the backup benchmark and return its figures. */
export async function main(): Promise<Figure[]> {
  const llm = await startScriptedLlm({ script: () => ({ content: 'A short answer.' }) });
  const stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', SVC_RATE_LIMIT_IP_PER_MINUTE: '1000000', SVC_RATE_LIMIT_TENANT_PER_MINUTE: '1000000', SVC_LOG_LEVEL: 'error' });
  try {
    const token = await login(stack.url, ADMIN.email, ADMIN.password);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown, method = 'POST'): Promise<{ id?: string; bytes?: number }> => {
      const r = await fetch(stack.url + path, { method, headers: auth, body: JSON.stringify(body) });
      if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      return await r.json() as { id?: string; bytes?: number };
    };
    const prov = await post('/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
    await post('/v1/admin/inference/roles/default', { provider_id: prov.id, model: 'scripted-model' }, 'PUT');
    const t0 = Date.now();
    seed(stack.dataDir);
    const seedMs = Date.now() - t0;

    const chatOnce = async (): Promise<number> => {
      const s = performance.now();
      await post('/v1/chat', { messages: [{ role: 'user', content: 'Hello' }] });
      return performance.now() - s;
    };
    for (let i = 0; i < 10; i++) await chatOnce();
    const beforeMs: number[] = [];
    for (let i = 0; i < 60; i++) beforeMs.push(await chatOnce());

    const duringMs: number[] = [];
    let done = false;
    const b0 = performance.now();
    const backup = post('/v1/admin/backups', { passphrase: 'bench passphrase 1234' }).finally(() => { done = true; });
    while (!done) duringMs.push(await chatOnce());
    const made = await backup;
    const backupS = (performance.now() - b0) / 1000;

    const ratio = pct(duringMs, 50) / pct(beforeMs, 50);
    // The one-instant cut across stores holds every store's write lock while the snapshots open (issue 19): its pause.
    const jobs = await fetch(`${stack.url}/v1/admin/jobs`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json()) as { jobs: Array<{ id: string; detail?: { write_pause_ms?: number } }> };
    const pauseMs = jobs.jobs.find((j) => j.id === `backup:${made.id}`)?.detail?.write_pause_ms ?? NaN;
    console.log('\n== backup under chat load (5,000 documents, 100,000 audit rows) ==');
    console.log(`write pause at the cut (all stores' write locks held while the snapshots open): ${pauseMs.toFixed(2)} ms`);
    console.log(`seeded in ${seedMs} ms; archive ${((made.bytes ?? 0) / 1048576).toFixed(1)} MiB in ${backupS.toFixed(2)} s`);
    console.log(`chat p50: before ${pct(beforeMs, 50).toFixed(2)} ms, during the backup ${pct(duringMs, 50).toFixed(2)} ms (${duringMs.length} turns), ratio ${ratio.toFixed(2)}x (target <= 1.5x)`);
    return [
      { name: 'backup duration (5,000 documents, 100,000 audit rows)', value: backupS, unit: 's' },
      { name: 'chat p50 during backup / before', value: ratio, unit: 'x', target: '<= 1.5', pass: ratio <= 1.5 },
      { name: 'write pause at the backup cut', value: pauseMs, unit: 'ms' },
    ];
  } finally {
    await stack.stop();
    await llm.close();
    rmSync(`${stack.dataDir}-backups`, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
}
