/**
 * Regression (issue 11 item 4, "Bounded input everywhere"): a JSON body nested 100,000 levels deep
 * answered 500, and an audit row whose detail nested 20,000 deep was stored (and later crashed the
 * offline verifier). Every service's door (the kit's JSON parser) now measures the nesting with a
 * linear scan before anything recursive runs and answers 400 `json_too_deep`; the service carries
 * on answering. Attacked from outside through the gateway, and directly at a service's own port.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { JSON_MAX_DEPTH } from '../../services/shared/kit/json-depth.js';
import { start as startMemory } from '../../services/memory/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { callJson, stampedHeaders, testPrincipal } from '../helpers/principals.js';
import { memoryConfig, removeDir } from '../helpers/service-configs.js';
import { ADMIN, login, startStack, type TestStack } from '../helpers/stack.js';

const arrays = (n: number): string => '['.repeat(n) + ']'.repeat(n);
const objects = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

let s: TestStack;
let token: string;

before(async () => {
  s = await startStack();
  token = await login(s.url, ADMIN.email, ADMIN.password);
});
after(async () => { await s.stop(); });

/** POST a raw JSON text; status and parsed body. */
async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { code?: string; max_depth?: number } & Record<string, unknown> }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) as { code?: string } : {} };
}

test('a 100,000-deep body through the gateway answers 400 json_too_deep on every service, which carry on', async () => {
  const auth = { authorization: `Bearer ${token}` };
  const cases: Array<[string, string]> = [
    ['/v1/memory', arrays(100_000)],
    ['/v1/memory', `{"content":"tea","metadata":${objects(100_000)}}`],
    ['/v1/sessions', `{"title":"x","metadata":${objects(100_000)}}`],
    ['/v1/knowledge/search', `{"query":"x","filter":${arrays(100_000)}}`],
    ['/v1/knowledge/ingest/batch', `{"records":[{"title":"t","content":"c","metadata":${objects(100_000)}}]}`],
    ['/v1/guard/input', `{"content":"hi","scope":${objects(100_000)}}`],
    ['/v1/chat/completions', `{"model":"x","messages":${arrays(100_000)}}`],
    ['/v1/audit', `{"action":"probe","detail":${objects(100_000)}}`],
  ];
  for (const [path, body] of cases) {
    const r = await postRaw(s.url + path, body, auth);
    assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, 'json_too_deep', path);
    assert.equal(r.body.max_depth, JSON_MAX_DEPTH, path);
  }
  // The services still answer, and a body at the limit is accepted.
  const stored = await postRaw(`${s.url}/v1/memory`, JSON.stringify({ content: 'I drink green tea every morning' }), auth);
  assert.ok(stored.status === 200 || stored.status === 201, JSON.stringify(stored.body));
  const session = await postRaw(`${s.url}/v1/sessions`, JSON.stringify({ title: 'still here' }), auth);
  assert.equal(session.status, 201);
  const shallow = await postRaw(`${s.url}/v1/audit`, JSON.stringify({ action: 'depth_probe_ok', detail: { nest: JSON.parse(arrays(JSON_MAX_DEPTH - 2)) as unknown } }), auth);
  assert.equal(shallow.status, 201, JSON.stringify(shallow.body));
});

test('an audit row with a detail nested 20,000 deep is refused and never stored', async () => {
  const auth = { authorization: `Bearer ${token}` };
  const r = await postRaw(`${s.url}/v1/audit`, `{"action":"depth_probe_deep","resource_type":"r","resource_id":"i","result":"ok","detail":${objects(20_000)}}`, auth);
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'json_too_deep');
  const list = await fetch(`${s.url}/v1/admin/audit?action=depth_probe_deep`, { headers: auth });
  assert.equal(list.status, 200);
  assert.deepEqual((await list.json() as { items: unknown[] }).items, []);
  const ok = await fetch(`${s.url}/v1/admin/audit?action=depth_probe_ok`, { headers: auth });
  assert.equal((await ok.json() as { items: unknown[] }).items.length, 1);
});

test('directly at a service port: the same 400 before any route code, and the service answers after', async () => {
  // A public route (auth login) parses its body with no principal: 20,000 deep fits its 64 KiB limit.
  const authUrl = s.sup.status().find((x) => x.name === 'auth')!.url;
  // Issue 15 item 4: the port takes only requests with a service token (the gateway's here).
  const login400 = await postRaw(`${authUrl}/v1/auth/login`, `{"username":${arrays(20_000)},"password":"x"}`, { authorization: `Bearer ${await s.serviceToken('gateway')}` });
  assert.equal(login400.status, 400);
  assert.equal(login400.body.code, 'json_too_deep');
  assert.equal((await fetch(`${authUrl}/healthz`)).status, 200);

  // A stamped call to a memory service of its own: 100,000 deep.
  const cfg = memoryConfig({ tenantId: 'acme' });
  let svc: RunningService | null = null;
  try {
    svc = await startMemory(cfg, { events: false });
    const base = `http://127.0.0.1:${svc.port}`;
    const headers = stampedHeaders(testPrincipal('u1', ['user'], 'acme'));
    const deep = await postRaw(`${base}/v1/memory`, `{"content":"x","metadata":${objects(100_000)}}`, headers);
    assert.equal(deep.status, 400);
    assert.equal(deep.body.code, 'json_too_deep');
    const fine = await callJson(base, 'POST', '/v1/memory', headers, { content: 'I prefer window seats on trains' });
    assert.ok(fine.status === 200 || fine.status === 201, JSON.stringify(fine.body));
  } finally {
    await svc?.close();
    removeDir(cfg.dataDir);
  }
});
