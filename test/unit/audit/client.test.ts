/**
 * THE audit client (services/audit/src/client.ts) against a recording HTTP server: the requests,
 * headers and bodies it sends, its retry rule for appends, and how it reports failures (appends
 * and uploads never throw; replay and artifact reads do).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuditClient, sha256Hex, type AppendFailure } from '../../../services/audit/src/client.js';
import { verifyStamp, type Principal } from '../../../services/shared/identity/principal.js';

const KEY = 'test-principal-key-0123456789abcdef0123456789';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string }

async function server(t: import('node:test').TestContext, answer: (req: Seen, res: ServerResponse) => void): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(s);
      answer(s, res);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => srv.close(() => r())));
  return { base: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, seen };
}

const client = (base: string, timeoutMs?: number) => new AuditClient({ baseUrl: base, service: 'guardrail', tenantId: 'tenant-a', principalKeys: [KEY], ...(timeoutMs ? { timeoutMs } : {}) });

function principalOf(h: IncomingMessage['headers']): Principal {
  const v = verifyStamp<Principal>(String(h['x-svc-principal']), [KEY]);
  assert.ok(v.ok, 'x-svc-principal verifies');
  return v.payload;
}

test('append posts the row as given, stamped as the calling service, and resolves true on 201', async (t) => {
  const { base, seen } = await server(t, (_s, res) => { res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":1}'); });
  const row = { tenant_id: 'tenant-a', detail_type: 'guardrail_verdict_v1', result: 'blocked', user_id: 'u1', action: 'guardrail.input.blocked', resource_type: 'turn', resource_id: 'T1', agent_id: null, detail: { check: 'input' } };
  assert.equal(await client(base).append(row), true);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.method, 'POST');
  assert.equal(seen[0]!.url, '/v1/audit');
  assert.equal(seen[0]!.headers['content-type'], 'application/json');
  assert.equal(seen[0]!.body, JSON.stringify(row));
  const p = principalOf(seen[0]!.headers);
  assert.equal(p.id, 'service:guardrail');
  assert.equal(p.tenant_id, 'tenant-a');
  assert.ok(p.roles.includes('service-account'));
});

test('append retries a 5xx up to the attempts asked, never a 4xx, and reports each failure', async (t) => {
  let n = 0;
  const { base, seen } = await server(t, (s, res) => {
    n++;
    res.writeHead(s.body.includes('"refuse"') ? 400 : (n === 1 ? 503 : 201)).end();
  });
  const failures: AppendFailure[] = [];
  assert.equal(await client(base).append({ action: 'x' }, { attempts: 2, onFailure: (f) => failures.push(f) }), true);
  assert.equal(seen.length, 2);
  assert.deepEqual(failures, [{ kind: 'refused', status: 503, attempt: 1 }]);

  failures.length = 0;
  assert.equal(await client(base).append({ action: 'refuse' }, { attempts: 2, onFailure: (f) => failures.push(f) }), false);
  assert.equal(seen.length, 3, 'a 4xx is final');
  assert.deepEqual(failures, [{ kind: 'refused', status: 400, attempt: 1 }]);
});

test('append to an unreachable audit resolves false after every attempt, never throws', async () => {
  const failures: AppendFailure[] = [];
  const ok = await client('http://127.0.0.1:9', 500).append({ action: 'x' }, { attempts: 2, onFailure: (f) => failures.push(f) });
  assert.equal(ok, false);
  assert.deepEqual(failures.map((f) => [f.kind, f.attempt]), [['unreachable', 1], ['unreachable', 2]]);
});

test('putArtifact sends the body with its sha256 and accepts 201 and 200 only', async (t) => {
  const statuses = [201, 200, 409];
  const { base, seen } = await server(t, (_s, res) => { res.writeHead(statuses.shift()!, { 'content-type': 'application/json' }).end('{}'); });
  const c = client(base);
  assert.equal(await c.putArtifact('T1', 'e1', 'prompt', '{"a":1}'), true);
  assert.equal(await c.putArtifact('T1', 'e1', 'prompt', '{"a":1}'), true);
  assert.equal(await c.putArtifact('T1', 'e1', 'prompt', 'other', 'text/plain'), false);
  assert.equal(seen[0]!.url, '/v1/audit/artifacts');
  assert.equal(seen[0]!.headers.accept, 'application/json');
  assert.deepEqual(JSON.parse(seen[0]!.body), { turn_id: 'T1', event_id: 'e1', kind: 'prompt', content_type: 'application/json', content: '{"a":1}', sha256: sha256Hex('{"a":1}') });
  assert.equal(JSON.parse(seen[2]!.body).content_type, 'text/plain');
  assert.equal(principalOf(seen[0]!.headers).id, 'service:guardrail');
  assert.equal(await client('http://127.0.0.1:9', 500).putArtifact('T1', 'e1', 'prompt', 'x'), false);
});

test('receipt answers the turn receipt, or null when audit does not know the turn', async (t) => {
  const receipt = { id: 'R1', turn_id: 'T 1', tier: 'attestable', status: 'pending', sealed: false, receipt_url: '/v1/receipts/T%201', proof_url: '/p', bundle_url: '/b' };
  const { base, seen } = await server(t, (s, res) => {
    if (s.url.includes('T%201')) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ turn_id: 'T 1', receipt }));
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no turn","code":"turn_not_found"}');
  });
  assert.deepEqual(await client(base).receipt('T 1'), receipt);
  assert.equal(seen[0]!.method, 'GET');
  assert.equal(seen[0]!.url, '/v1/turns/T%201');
  assert.equal(await client(base).receipt('T2'), null);
  assert.equal(await client('http://127.0.0.1:9', 500).receipt('T2'), null);
});

test('replay and artifact forward the caller\'s headers; replay is null on 404, both throw on other errors', async (t) => {
  const { base, seen } = await server(t, (s, res) => {
    if (s.url === '/v1/audit/turns/T1/replay') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ events: [{ event_id: 'e1' }] }));
    else if (s.url === '/v1/audit/turns/T2/replay') res.writeHead(404).end();
    else if (s.url === '/v1/audit/turns/T1/artifacts/e1/prompt') res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}');
    else res.writeHead(500).end();
  });
  const caller = { 'x-svc-principal': 'caller-stamp' };
  const c = client(base);
  assert.deepEqual(await c.replay('T1', caller), [{ event_id: 'e1' }]);
  assert.equal(seen[0]!.headers['x-svc-principal'], 'caller-stamp');
  assert.equal(await c.replay('T2', caller), null);
  await assert.rejects(c.replay('T3', caller), /audit replay answered HTTP 500/);
  assert.equal(await c.artifact('/v1/audit/turns/T1/artifacts/e1/prompt', caller), '{"a":1}');
  await assert.rejects(c.artifact('/v1/audit/turns/T1/artifacts/e9/prompt', caller), /audit artifact answered HTTP 500/);
});
