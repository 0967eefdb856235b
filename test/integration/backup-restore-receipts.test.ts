/**
 * Backups and restore from outside (issue 19 item 2, "Done when"): on the real stack with the
 * scripted LLM, an admin takes an encrypted backup while chat turns run; a dry-run restore answers
 * the audit chain report and changes nothing; a wrong passphrase answers 400 `bad_passphrase`; a
 * tampered archive answers 400 `archive_tampered`; a real restore is staged, the stack stops, the
 * data directory's stores are wiped, the startup restore step applies it, and every receipt of
 * before verifies on the restarted stack.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { eventually } from '../helpers/runtime-harness.js';
import { applyPendingRestore } from '../../main/restore-step.js';

const PASS = 'correct horse battery staple';
let stack: TestStack | null = null;
let llm: ScriptedLlm | null = null;
const cleanup: string[] = [];
after(async () => {
  await stack?.stop();
  await llm?.close();
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

type Answer = { status: number; body: unknown; headers: Headers; raw: Buffer };
async function call(url: string, token: string | null, method: string, path: string, body?: unknown, type = 'application/octet-stream'): Promise<Answer> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let payload: string | Uint8Array | undefined;
  if (Buffer.isBuffer(body)) { headers['content-type'] = type; payload = new Uint8Array(body); }
  else if (body !== undefined) { headers['content-type'] = 'application/json'; payload = JSON.stringify(body); }
  const r = await fetch(url + path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const raw = Buffer.from(await r.arrayBuffer());
  let parsed: unknown = null;
  try { parsed = raw.length ? JSON.parse(raw.toString('utf8')) : null; } catch { parsed = null; }
  return { status: r.status, body: parsed, headers: r.headers, raw };
}

test('backup during chat load, dry run, wrong passphrase, tamper, then wipe + restore on restart: every receipt of before verifies', async () => {
  llm = await startScriptedLlm({ script: (r) => ({ content: `echo: ${String((r.body.messages as Array<{ content: unknown }>).at(-1)!.content)}` }) });
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-backup-data-'));
  const backupDir = mkdtempSync(join(tmpdir(), 'svc-backup-dir-'));
  cleanup.push(dataDir, backupDir);
  const env = { SVC_DATA_DIR: dataDir, SVC_BACKUP_DIR: backupDir, AGENT_RUNTIME_TITLES: 'false' };
  stack = await startStack(env);
  let token = await login(stack.url, ADMIN.email, ADMIN.password);
  const api = (method: string, path: string, body?: unknown): Promise<Answer> => call(stack!.url, token, method, path, body);
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status === 201 || prov.status === 200, JSON.stringify(prov.body));
  const role = await api('PUT', '/v1/admin/inference/roles/default', { provider_id: (prov.body as { id: string }).id, model: 'scripted-model' });
  assert.ok(role.status < 300, JSON.stringify(role.body));

  const chat = async (text: string): Promise<string> => {
    const r = await api('POST', '/v1/chat', { messages: [{ role: 'user', content: text }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.headers.get('x-svc-turn-id')!;
  };
  const before: string[] = [];
  for (let i = 0; i < 3; i++) before.push(await chat(`before ${i}`));

  // Admin only, and the backup is taken while turns run.
  assert.equal((await call(stack.url, null, 'POST', '/v1/admin/backups', { passphrase: PASS })).status, 401);
  assert.equal((await api('POST', '/v1/admin/backups', { passphrase: 'short' })).status, 400);
  const load = Promise.all([0, 1, 2, 3, 4, 5].map((i) => chat(`during ${i}`)));
  const created = await api('POST', '/v1/admin/backups', { passphrase: PASS });
  await load;
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const bk = created.body as { id: string; created_at: string; bytes: number };
  assert.match(bk.id, /^bk_/);
  assert.ok(bk.bytes > 1000);
  assert.ok(existsSync(join(backupDir, `${bk.id}.svcbak`)), 'the archive is written to SVC_BACKUP_DIR');
  const list = await api('GET', '/v1/admin/backups');
  assert.deepEqual((list.body as { backups: Array<{ id: string }> }).backups.map((b) => b.id), [bk.id]);

  // The archive is encrypted: no SQLite header nor the chat's text in clear.
  const dl = await api('GET', `/v1/admin/backups/${bk.id}/download`);
  assert.equal(dl.status, 200);
  assert.equal(dl.raw.length, bk.bytes);
  assert.ok(!dl.raw.includes(Buffer.from('SQLite format 3')) && !dl.raw.includes(Buffer.from('before 0')), 'archive body is ciphertext');

  // Wrong passphrase.
  const wrong = await api('POST', `/v1/admin/backups/${bk.id}/restore`, { passphrase: 'not the passphrase', dry_run: true });
  assert.equal(wrong.status, 400);
  assert.equal((wrong.body as { code: string }).code, 'bad_passphrase');

  // Dry run: the report, nothing replaced.
  const dry = await api('POST', `/v1/admin/backups/${bk.id}/restore`, { passphrase: PASS, dry_run: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  const report = dry.body as { dry_run: boolean; staged: boolean; stores: string[]; audit_chain: { ok: boolean; checked: number; failures: unknown[] } };
  assert.equal(report.dry_run, true);
  assert.equal(report.staged, false);
  assert.ok(report.stores.includes('audit.sqlite') && report.stores.includes('auth.sqlite'), report.stores.join(','));
  assert.equal(report.audit_chain.ok, true, JSON.stringify(report.audit_chain.failures.slice(0, 3)));
  assert.ok(report.audit_chain.checked > 0);
  assert.ok(!existsSync(join(backupDir, 'restore-pending.json')), 'a dry run stages nothing');
  assert.ok(!readdirSync(dataDir).some((n) => n.includes('replaced')));

  // Tampered archive: import a copy with one ciphertext byte flipped.
  const bad = Buffer.from(dl.raw);
  bad[bad.length - 40] = bad[bad.length - 40]! ^ 0x01;
  const imported = await api('POST', '/v1/admin/backups/import', bad);
  assert.equal(imported.status, 201, JSON.stringify(imported.body));
  const badId = (imported.body as { id: string }).id;
  const tampered = await api('POST', `/v1/admin/backups/${badId}/restore`, { passphrase: PASS, dry_run: true });
  assert.equal(tampered.status, 400);
  assert.equal((tampered.body as { code: string }).code, 'archive_tampered');
  assert.equal((await api('POST', '/v1/admin/backups/import', Buffer.from('not an archive at all'))).status, 400);
  assert.equal((await api('DELETE', `/v1/admin/backups/${badId}`)).status, 204);
  assert.equal((await api('DELETE', `/v1/admin/backups/${badId}`)).status, 404);
  // An import streamed to disk (application/vnd.svc.backup), then its dry run.
  const streamed = await call(stack.url, token, 'POST', '/v1/admin/backups/import', dl.raw, 'application/vnd.svc.backup');
  assert.equal(streamed.status, 201, JSON.stringify(streamed.body));
  assert.equal((streamed.body as { bytes: number }).bytes, bk.bytes);
  const sid = (streamed.body as { id: string }).id;
  const sdry = await api('POST', `/v1/admin/backups/${sid}/restore`, { passphrase: PASS, dry_run: true });
  assert.equal((sdry.body as { audit_chain: { ok: boolean } }).audit_chain.ok, true);
  assert.equal((await call(stack.url, token, 'POST', '/v1/admin/backups/import', Buffer.from('junk'), 'application/vnd.svc.backup')).status, 400);
  assert.equal((await call(stack.url, token, 'POST', '/v1/admin/backups', Buffer.from('x'), 'application/vnd.svc.backup')).status, 415);
  assert.equal((await api('DELETE', `/v1/admin/backups/${sid}`)).status, 204);
  assert.ok(!readdirSync(backupDir).some((n) => n.startsWith('.incoming-')), 'no streamed leftovers');

  // The schedule: set, read, refused when malformed, cleared.
  const sched = await api('PUT', '/v1/admin/backups/schedule', { interval_hours: 24, passphrase: PASS, keep: 3 });
  assert.equal(sched.status, 200, JSON.stringify(sched.body));
  assert.equal((sched.body as { schedule: { interval_hours: number; keep: number } }).schedule.keep, 3);
  assert.equal(((await api('GET', '/v1/admin/backups/schedule')).body as { schedule: { interval_hours: number } }).schedule.interval_hours, 24);
  assert.equal((await api('PUT', '/v1/admin/backups/schedule', { interval_hours: -1 })).status, 400);
  assert.equal(((await api('PUT', '/v1/admin/backups/schedule', { interval_hours: 0 })).body as { schedule: unknown }).schedule, null);
  assert.equal((await api('GET', '/v1/admin/backups/bk_nope/download')).status, 404);

  // The receipts of before, sealed and verifying now.
  for (const t of before) {
    await eventually(async () => ((await api('POST', `/v1/receipts/${t}/verify`)).body as { ok?: boolean } | null)?.ok === true || null, 20_000, 250);
  }

  // Real restore: staged; stop; wipe the stores; the startup step applies it.
  const real = await api('POST', `/v1/admin/backups/${bk.id}/restore`, { passphrase: PASS, dry_run: false });
  assert.equal(real.status, 202, JSON.stringify(real.body));
  assert.ok(existsSync(join(backupDir, 'restore-pending.json')));
  await stack.stop();
  stack = null;
  rmSync(join(dataDir, 'db'), { recursive: true, force: true });
  rmSync(join(dataDir, 'secrets'), { recursive: true, force: true });
  const applied = await applyPendingRestore(env);
  assert.equal(applied?.id, bk.id);
  assert.ok(applied?.replacedDir && existsSync(applied.replacedDir), 'the replaced data directory is kept aside');
  cleanup.push(applied.replacedDir);
  assert.ok(!existsSync(join(backupDir, 'restore-pending.json')));
  assert.equal(await applyPendingRestore(env), null, 'applied once');

  stack = await startStack(env);
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  for (const t of before) {
    const v = await eventually(async () => {
      const r = await api('POST', `/v1/receipts/${t}/verify`);
      return r.status === 200 && (r.body as { ok: boolean }).ok ? r : null;
    }, 20_000, 250);
    assert.equal((v.body as { ok: boolean }).ok, true, `receipt ${t} verifies after restore`);
  }
  const chain = await api('GET', '/v1/admin/audit/verify?tenant_id=acme');
  assert.equal(chain.status, 200, JSON.stringify(chain.body));
  assert.equal((chain.body as { ok: boolean }).ok, true, JSON.stringify(chain.body).slice(0, 400));
});
