/**
 * The scale-out stack's acceptance (issue 21 "Done when"): every store in one PostgreSQL database
 * (pgvector), Redis for shared state, two gateways and two agent runtimes — stack A is the desktop
 * stack (supervisor, every service), process B runs a second gateway and runtime with
 * `svc --service gateway,agent-runtime` on the same database. Proven from outside:
 * - a token from gateway B's sign-in works on gateway A (one auth store);
 * - a turn started through gateway A parks for a tool approval on runtime A and is approved through
 *   gateway B, then resumes and completes; a turn through gateway B is approved through gateway A;
 * - both turns' receipts, read through the other gateway, verify offline with `svc-verify` and the
 *   published public key alone, and the audit chain verifies (`/v1/admin/audit/verify`);
 * - no `.sqlite` store file exists anywhere under the data directory.
 * Skipped where PostgreSQL 15 or redis-server is not installed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, callJson, login, openChatStream, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { eventually } from '../helpers/runtime-harness.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { hasRedis, startPeerProcess, startRedis, type PeerProcess, type TestRedis } from '../helpers/scale-out.js';
import { runCliAsync, type CliIo } from '../../scripts/svc-verify.js';

const skip = postgresMissing() ?? (hasRedis ? false : 'redis-server is not installed');

let pgc: TestPostgres | null = null;
let redis: TestRedis | null = null;
let llm: ScriptedLlm | null = null;
let stack: TestStack | null = null;
let b: PeerProcess | null = null;

before(async () => {
  if (skip) return;
  pgc = await startPostgres();
  redis = await startRedis();
  llm = await startScriptedLlm({
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
      const last = msgs.at(-1)!;
      if (last.role === 'tool') return { content: `Result: ${String(last.content)}` };
      return { content: 'Checking. ', toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"6*7"}' }] };
    },
  });
  const env = { REDIS_URL: redis.url, SVC_DATABASE_URL: pgc.url, AGENT_RUNTIME_TITLES: 'false', AUDIT_CHECKPOINT_INTERVAL_SECONDS: '1' };
  stack = await startStack(env);
  b = await startPeerProcess(stack, ['gateway', 'agent-runtime'], env);
});

after(async () => {
  if (b && b.proc.exitCode === null) b.proc.kill('SIGKILL');
  await stack?.stop();
  await llm?.close();
  redis?.stop();
  await pgc?.stop();
});

/** Every file under `dir` whose name ends in `.sqlite` (or its -wal/-shm). */
function sqliteFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sqliteFiles(p));
    else if (/\.sqlite(-wal|-shm)?$/.test(name)) out.push(p);
  }
  return out;
}

/** Start a turn through `via` that parks for approval; approve it through `approveVia`; return its turn id. */
async function approvedAcross(via: string, approveVia: string, token: string): Promise<string> {
  const streaming = openChatStream(via, token, 'What is 6 times 7?', 'approval_required');
  const parked = await streaming.first;
  const approval = (parked.data as { approvals: Array<{ id: string; status: string }> }).approvals[0]!;
  assert.equal(approval.status, 'pending');
  const decided = await callJson(approveVia, token, 'POST', `/v1/user/approvals/${approval.id}/approve`, {});
  assert.equal(decided.status, 200, JSON.stringify(decided.body));
  const records = await Promise.race([
    streaming.done,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the parked turn did not resume')), 20_000)),
  ]);
  const names = records.map((r) => r.event);
  const text = records.filter((r) => r.event === 'token').map((r) => (r.data as { content: string }).content).join('');
  assert.match(text, /Result: .*42/, names.join(','));
  assert.equal(names.at(-1), 'done');
  const turn = await streaming.turnId;
  assert.ok(turn, 'the stream answered no x-svc-turn-id');
  return turn;
}

test('two gateways and two runtimes on PostgreSQL and Redis: approvals across gateways, receipts verify, no SQLite file', { skip }, async () => {
  const urlA = stack!.url;
  const urlB = b!.url;
  assert.notEqual(urlA, urlB);
  // Sign in through B; the token works on A (one auth store in PostgreSQL).
  const token = await login(urlB, ADMIN.email, ADMIN.password);
  assert.equal((await callJson(urlA, token, 'GET', '/v1/notifications/unread-count')).status, 200);
  const prov = await callJson(urlA, token, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm!.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status < 300, JSON.stringify(prov.body));
  assert.ok((await callJson(urlB, token, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  assert.equal((await callJson(urlA, token, 'PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' })).status, 200);

  const turnA = await approvedAcross(urlA, urlB, token);
  const turnB = await approvedAcross(urlB, urlA, token);
  assert.notEqual(turnA, turnB);

  // Each receipt, read through the other gateway, verifies offline with the public key alone.
  for (const [turn, readVia] of [[turnA, urlB], [turnB, urlA]] as const) {
    const bundle = await eventually(async () => {
      const r = await callJson(readVia, token, 'GET', `/v1/receipts/${turn}/bundle`);
      return r.status === 200 ? r.body as unknown : undefined;
    }, 30_000, 250);
    const lines: string[] = [];
    const io: CliIo = { readFile: () => JSON.stringify(bundle), out: (l) => lines.push(l), err: (l) => lines.push(l) };
    assert.equal(await runCliAsync(['--receipt', 'bundle.json', '--public-key', `${readVia}/v1/receipts/keys`], io), 0, lines.join('\n'));
  }
  const chain = await callJson(urlB, token, 'GET', '/v1/admin/audit/verify?tenant_id=acme');
  assert.equal(chain.status, 200, JSON.stringify(chain.body));
  assert.equal(chain.body.ok, true, JSON.stringify(chain.body.failures));
  assert.ok(chain.body.checked > 0);

  // Every store is in PostgreSQL: no SQLite file under the shared data directory.
  assert.deepEqual(sqliteFiles(stack!.dataDir), []);
  const schemas = await pgc!.sql<{ schema_name: string }>("SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('audit','auth','agent_runtime','knowledge','memory','guardrail','observability','inference_router') ORDER BY 1");
  assert.equal(schemas.length, 8, JSON.stringify(schemas));

  assert.equal(await b!.stop(), 0);
});
