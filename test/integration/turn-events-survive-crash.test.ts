/**
 * An answered turn's receipt survives a crash (issue 11 item 7). The probe killed the gateway with
 * SIGKILL during a burst of chat turns; turns that had answered 200 sealed five minutes later as
 * `failed` by the watermark, because the gateway's `turn_sealed` was still queued in memory.
 *
 * Here the gateway and the agent runtime run as child processes (test/fixtures/turn-events/
 * child-service.ts) that can be SIGKILLed, with the real audit service, the scripted LLM and an
 * allow-all guardrail stand-in in this process. Audit's watermark is short (15 s), so a terminal
 * event that never arrives shows as `failed` within the test.
 *
 * 1. The gateway's batch delay is an hour, so when a burst of JSON and SSE chats has answered, none
 *    of its events has left it; it is killed, audit holds every turn `pending`, and after a restart
 *    on the same data dir every answered turn seals `completed` by its terminal event.
 * 2. With audit away, chats answer 200 while the runtime's and the gateway's events wait; both are
 *    killed; after audit, then the runtime, then the gateway restart, each turn seals `completed`
 *    with the runtime's events in it.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { start as startAudit } from '../../services/audit/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import type { ChildOptions } from '../fixtures/turn-events/child-service.js';
import { ADMIN, PRINCIPAL_KEY, TENANT, auditConfig, call, removeDir } from '../helpers/audit.js';
import { TEST_ISSUER } from '../helpers/gateway-config.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { eventually } from '../helpers/runtime-harness.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';

const CHILD = fileURLToPath(new URL('../fixtures/turn-events/child-service.js', import.meta.url));
const WATERMARK_SECONDS = 15;
const CAP_KEY = 'cap-key-0123456789abcdef0123456789abcdef';

/** A killable service process. */
interface Child { url: string; kill(): Promise<void> }

async function spawnChild(t: TestContext, service: 'gateway' | 'agent-runtime', opts: ChildOptions): Promise<Child> {
  const proc: ChildProcess = spawn(process.execPath, [CHILD, service, JSON.stringify(opts)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const kill = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGKILL');
    await exited;
  };
  t.after(kill);
  const lines = createInterface({ input: proc.stdout! });
  for await (const line of lines) {
    try {
      const port = (JSON.parse(line) as { port?: number }).port;
      if (typeof port === 'number') return { url: `http://127.0.0.1:${port}`, kill };
    } catch { /* a log line */ }
  }
  throw new Error(`${service} child exited before listening`);
}

/** An allow-all guardrail; memory and knowledge answer 404 there (the runtime treats them as unavailable). */
async function startSidecar(t: TestContext): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/guard/input' || req.url === '/v1/guard/output') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ decision: 'allow', reason: '', scanner_results: [], rewritten_content: null }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found","code":"not_found"}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** Everything but the children: audit (short watermark), scripted LLM, sidecar, issuer, data dirs. */
async function environment(t: TestContext) {
  const auditDir = mkdtempSync(join(tmpdir(), 'svc-crash-audit-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-data-'));
  t.after(() => { removeDir(auditDir); removeDir(dataDir); });
  const llm: ScriptedLlm = await startScriptedLlm();
  t.after(() => llm.close());
  const sidecar = await startSidecar(t);
  const issuer: TestIssuer = await startIssuer();
  t.after(() => issuer.close());
  const audits: RunningService[] = [];
  t.after(async () => { for (const a of audits) await a.close().catch(() => undefined); });
  const auditUp = async (): Promise<string> => {
    const a = await startAudit(auditConfig({ sealIntervalSeconds: 1, sealWatermarkSeconds: WATERMARK_SECONDS }, auditDir));
    audits.push(a);
    return `http://127.0.0.1:${a.port}`;
  };
  const now = Math.floor(Date.now() / 1000);
  const token = await issuer.mint({
    iss: TEST_ISSUER, aud: 'svc-frontend', sub: 'user-1', email: 'ana@example.com', realm_access: { roles: ['user'] }, iat: now, exp: now + 3600, auth_method: 'password',
  });
  const base = { dataDir, tenantId: TENANT, principalKeys: [PRINCIPAL_KEY], capTokenKeys: [CAP_KEY] };
  return {
    token, auditUp, auditDown: async () => { await audits.at(-1)!.close(); },
    runtime: (auditUrl: string): ChildOptions => ({ ...base, urls: { audit: auditUrl, 'inference-router': llm.url, guardrail: sidecar, memory: sidecar, knowledge: sidecar } }),
    gateway: (auditUrl: string, runtimeUrl: string, batchMs?: number): ChildOptions => ({
      ...base, urls: { audit: auditUrl, 'agent-runtime': runtimeUrl }, jwksUrl: issuer.jwksUrl, ...(batchMs === undefined ? {} : { batchMs }),
    }),
  };
}

/** One chat through the gateway, read to its last byte. @returns the turn id of a complete 200 answer. */
async function chat(gateway: string, token: string, text: string, stream: boolean): Promise<string> {
  const r = await fetch(`${gateway}/v1/chat${stream ? '/stream' : ''}`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: text }] }),
  });
  const body = await r.text();
  assert.equal(r.status, 200, body);
  if (stream) assert.match(body, /event: done/, 'the stream ran to its end');
  else assert.equal((JSON.parse(body) as { message: { content: string } }).message.content, `echo: ${text}`);
  return r.headers.get('x-svc-turn-id')!;
}

interface TurnView { receipt: { sealed: boolean }; envelope: { payload: { status: string; seal_reason: string } } | null }

/** The turn as audit holds it (admin view), or null while audit does not know it. */
async function turnView(auditUrl: string, turnId: string): Promise<TurnView | null> {
  const r = await call(auditUrl, 'GET', `/v1/turns/${turnId}`, ADMIN());
  if (r.status === 404) return null;
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as TurnView;
}

/** Wait for every turn to seal, then check it sealed `completed` by its terminal event, with the gateway's and the runtime's events. */
async function assertSealedCompleted(auditUrl: string, turns: readonly string[]): Promise<void> {
  for (const turn of turns) {
    const v = await eventually(async () => { const x = await turnView(auditUrl, turn); return x?.envelope ? x : null; }, 2 * WATERMARK_SECONDS * 1000, 200);
    const detail = await call(auditUrl, 'GET', `/v1/receipts/${turn}`, ADMIN());
    assert.equal(detail.status, 200);
    const events = (detail.body as { events: Array<{ payload_type: string; payload_json: string }> }).events;
    const types = events.map((e) => e.payload_type);
    assert.deepEqual({ turn, status: v.envelope!.payload.status, reason: v.envelope!.payload.seal_reason }, { turn, status: 'completed', reason: 'terminal_event' },
      JSON.stringify(events.map((e) => [e.payload_type, e.payload_json])));
    for (const ty of ['turn_started', 'model_invoked', 'model_response', 'turn_sealed']) assert.ok(types.includes(ty), `${turn}: ${ty} in ${types.join(',')}`);
  }
}

test('the gateway SIGKILLed right after a burst answered: every answered turn seals completed after its restart', async (t) => {
  const env = await environment(t);
  const auditUrl = await env.auditUp();
  const runtime = await spawnChild(t, 'agent-runtime', env.runtime(auditUrl));
  // An hour of batch delay: the gateway sends none of its events before it is killed.
  const gw1 = await spawnChild(t, 'gateway', env.gateway(auditUrl, runtime.url, 3_600_000));
  const turns = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(gw1.url, env.token, `burst ${i}`, i % 3 === 2)));
  await gw1.kill();

  // The runtime delivered its events before answering; the gateway's never left it: every turn is pending.
  for (const turn of turns) {
    const v = await turnView(auditUrl, turn);
    assert.ok(v, `audit knows ${turn} from the runtime's events`);
    assert.equal(v.receipt.sealed, false, `${turn} has no terminal event before the restart`);
  }

  await spawnChild(t, 'gateway', env.gateway(auditUrl, runtime.url));
  await assertSealedCompleted(auditUrl, turns);
});

test('audit away during the turns, then runtime and gateway SIGKILLed: after the restarts each turn seals completed with the runtime\'s events', async (t) => {
  const env = await environment(t);
  const audit1 = await env.auditUp();
  const rt1 = await spawnChild(t, 'agent-runtime', env.runtime(audit1));
  const gw1 = await spawnChild(t, 'gateway', env.gateway(audit1, rt1.url));
  await env.auditDown();
  const turns = await Promise.all(Array.from({ length: 3 }, (_, i) => chat(gw1.url, env.token, `while audit is away ${i}`, i === 2)));
  await Promise.all([gw1.kill(), rt1.kill()]);

  const audit2 = await env.auditUp();
  for (const turn of turns) assert.equal(await turnView(audit2, turn), null, 'no event reached audit before the crash');
  // The runtime first: its events (left in its outbox) must reach audit before the gateway's seal.
  const rt2 = await spawnChild(t, 'agent-runtime', env.runtime(audit2));
  for (const turn of turns) await eventually(() => turnView(audit2, turn), 15_000, 100);
  await spawnChild(t, 'gateway', env.gateway(audit2, rt2.url));
  await assertSealedCompleted(audit2, turns);
});
