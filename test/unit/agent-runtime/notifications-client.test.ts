/**
 * The producers' `NotificationsClient` against a stand-in runtime (issue 13 item 1): posts with the
 * service stamp, one retry after a 5xx, no retry after a 4xx, `notify` never throws and logs a run
 * of failures once, bounded concurrency.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { NotificationPostError, NotificationsClient } from '../../../services/agent-runtime/src/client.js';
import { verifyStamp, type Principal } from '../../../services/shared/identity/principal.js';

const KEY = 'notifications-client-test-key-0123456789abcdef';

async function stub(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const n = { tenant_id: 't', user_id: 'u', kind: 'document_indexed', title: 'x', idempotency_key: 'k' };

test('send: posts to /v1/internal/notifications with the service principal; retries a 5xx once; a 4xx is not retried', async () => {
  let calls = 0;
  const seen: Principal[] = [];
  const s = await stub((req, body, res) => {
    calls++;
    const v = verifyStamp<Principal>(String(req.headers['x-svc-principal']), [KEY]);
    if (v.ok) seen.push(v.payload);
    assert.equal(req.url, '/v1/internal/notifications');
    assert.deepEqual(JSON.parse(body), n);
    if (calls === 1) { res.writeHead(503); res.end(); return; }
    if (calls === 3) { res.writeHead(403, { 'content-type': 'application/json' }); res.end('{"error":"no","code":"producer_not_allowed"}'); return; }
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'n1', kind: n.kind, title: n.title, body: null, payload: null, read_at: null, created_at: 'now' }));
  });
  try {
    const c = new NotificationsClient({ baseUrl: s.url, service: 'knowledge', tenantId: 't', principalKeys: [KEY], retryDelayMs: 10 });
    const ok = await c.send(n);
    assert.equal(ok.status, 201);
    assert.equal(ok.notification.id, 'n1');
    assert.equal(calls, 2, 'one retry after the 503');
    assert.equal(seen[0]!.id, 'service:knowledge');
    assert.equal(seen[0]!.auth_method, 'service');
    await assert.rejects(c.send(n), (err: unknown) => err instanceof NotificationPostError && err.code === 'producer_not_allowed' && err.status === 403);
    assert.equal(calls, 3, 'no retry after a 4xx');
  } finally {
    await s.close();
  }
});

test('notify: never throws, logs a run of failures once, at most `concurrency` in flight', async () => {
  let inFlight = 0;
  let peak = 0;
  let fail = true;
  const s = await stub((_req, _body, res) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(fail ? 500 : 201, { 'content-type': 'application/json' });
      res.end('{}');
    }, 5);
  });
  const lines: string[] = [];
  const log = { warn: (_o: object, m: string) => { lines.push(`warn ${m}`); }, info: (_o: object, m: string) => { lines.push(`info ${m}`); } };
  try {
    const c = new NotificationsClient({ baseUrl: s.url, service: 'sandbox', tenantId: 't', principalKeys: [KEY], log, concurrency: 2, retryDelayMs: 1 });
    for (let i = 0; i < 6; i++) c.notify({ ...n, idempotency_key: `k${i}` });
    await c.idle();
    assert.ok(peak <= 2, `peak ${peak}`);
    assert.deepEqual(lines, ['warn notification failed']);
    fail = false;
    c.notify(n);
    await c.idle();
    assert.deepEqual(lines, ['warn notification failed', 'info notifications reach the agent runtime again']);
  } finally {
    await s.close();
  }
  // Nobody listening: still no throw.
  const dead = new NotificationsClient({ baseUrl: 'http://127.0.0.1:9', service: 'sandbox', tenantId: 't', principalKeys: [KEY], retryDelayMs: 1 });
  dead.notify(n);
  await dead.idle();
});
