/**
 * Regression (issue 11 item 4, "Bounded input everywhere"): the gateway accepted 5 MiB bodies
 * that a service's 1 MiB limit then cut, and the client saw an empty reply with status 499. The
 * gateway now knows each upstream route's body limit (services/gateway/src/domain/body-limits.ts)
 * and answers 413 `{error, code: "payload_too_large"}` itself before forwarding a byte, from the
 * Content-Length or as soon as a chunked body passes the limit; an upstream that resets the
 * connection gives the client a JSON 502, never an empty 499. The gateway's table is checked
 * against every service's own limits, so the two cannot drift.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { start } from '../../services/gateway/src/index.js';
import { BodyLimits } from '../../services/gateway/src/domain/body-limits.js';
import { loadStackConfig, serviceConfigs } from '../../main/config/index.js';
import { buildService, type ServiceDefinition } from '../../services/shared/kit/service.js';
import { basicService } from '../../services/shared/kit/basic-service.js';
import { SERVICE_NAMES, type ServiceName, type UpstreamName } from '../../services/shared/services.js';
import type { CommonServiceConfig } from '../../services/shared/config.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { agentRuntimeService } from '../../services/agent-runtime/src/app.js';
import { auditService } from '../../services/audit/src/app.js';
import { authService } from '../../services/auth/src/app.js';
import { guardrailService } from '../../services/guardrail/src/app.js';
import { inferenceRouterService } from '../../services/inference-router/src/app.js';
import { knowledgeService } from '../../services/knowledge/src/app.js';
import { memoryService } from '../../services/memory/src/app.js';
import { observabilityService } from '../../services/observability/src/app.js';
import { sandboxService } from '../../services/sandbox/src/app.js';
import { SANDBOX_BODY_LIMIT_BYTES } from '../../services/sandbox/src/contracts.js';
import { gatewayConfig, TEST_ISSUER } from '../helpers/gateway-config.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { startUpstream, type RecordingUpstream } from '../helpers/upstream.js';

const MiB = 1024 * 1024;

let issuer: TestIssuer;
let up: RecordingUpstream;
let gw: RunningService;
let token: string;

before(async () => {
  issuer = await startIssuer();
  up = await startUpstream();
  gw = await start(gatewayConfig(up.url, issuer.jwksUrl, { maxRequestBodyBytes: 25 * MiB }));
  const now = Math.floor(Date.now() / 1000);
  token = await issuer.mint({ iss: TEST_ISSUER, aud: 'svc-frontend', sub: 'user-1', email: 'ana@example.com', realm_access: { roles: ['user'] }, iat: now, exp: now + 600, auth_method: 'password' });
});
after(async () => { await gw.close(); await up.close(); await issuer.close(); });

/** What a raw HTTP exchange gave back. */
interface Answer { status: number; headers: Record<string, string | string[] | undefined>; text: string }

/**
 * POST `chunks` to the gateway over node:http (chunked when `length` is false). A server may answer
 * before the body is sent and close: the answer counts, a write error after it does not.
 */
function post(port: number, path: string, chunks: Buffer[], opts: { length?: boolean; type?: string; auth?: string | null } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const size = chunks.reduce((n, c) => n + c.length, 0);
    const headers: Record<string, string> = { 'content-type': opts.type ?? 'application/json' };
    if (opts.length !== false) headers['content-length'] = String(size);
    if (opts.auth !== null) headers.authorization = `Bearer ${opts.auth ?? token}`;
    let answered = false;
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', (err) => { if (!answered) reject(err); });
    (async () => {
      for (const c of chunks) {
        if (req.destroyed) return;
        if (!req.write(c)) await new Promise<void>((r) => { req.once('drain', r); req.once('close', r); });
      }
      req.end();
    })().catch(() => undefined);
  });
}

/** `total` bytes of JSON (a string field), as `n`-byte chunks. */
function jsonBody(total: number, n = 64 * 1024): Buffer[] {
  const text = Buffer.from(`{"content":"${'x'.repeat(total - 14)}"}`);
  const out: Buffer[] = [];
  for (let i = 0; i < text.length; i += n) out.push(text.subarray(i, i + n));
  return out;
}

function forwarded(path: string): number {
  return up.seen.filter((s) => s.url.startsWith(path)).length;
}

test('5 MiB to a 1 MiB route: 413 JSON payload_too_large from the gateway, nothing forwarded', async () => {
  const before = forwarded('/v1/memory');
  const r = await post(gw.port, '/v1/memory', jsonBody(5 * MiB));
  assert.equal(r.status, 413);
  assert.match(String(r.headers['content-type']), /application\/json/);
  const body = JSON.parse(r.text) as { error: string; code: string; limit_bytes: number };
  assert.equal(body.code, 'payload_too_large');
  assert.equal(body.limit_bytes, MiB);
  assert.ok(body.error.length > 0);
  assert.equal(forwarded('/v1/memory'), before, 'the memory service never saw the body');
});

test('a chunked body without Content-Length is cut at the route limit with the same 413', async () => {
  const before = forwarded('/v1/memory');
  const r = await post(gw.port, '/v1/memory', jsonBody(5 * MiB), { length: false });
  assert.equal(r.status, 413);
  assert.equal((JSON.parse(r.text) as { code: string }).code, 'payload_too_large');
  assert.equal(forwarded('/v1/memory'), before);
});

test('a body within the route limit is forwarded whole, chunked or not', async () => {
  for (const length of [true, false]) {
    const r = await post(gw.port, '/v1/memory', jsonBody(MiB - 1024), { length });
    assert.equal(r.status, 200, r.text);
    const seen = up.seen.at(-1)!;
    assert.equal(seen.url, '/v1/memory');
    assert.equal(Buffer.byteLength(seen.body), MiB - 1024);
  }
});

test('an upload route keeps its larger limit; a small limit (auth) and a rewritten path (sandbox) get theirs', async () => {
  const boundary = 'b0undary';
  const file = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`),
    Buffer.alloc(5 * MiB, 'a'), Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const ok = await post(gw.port, '/v1/knowledge/ingest', [file], { type: `multipart/form-data; boundary=${boundary}` });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(up.seen.at(-1)!.url, '/v1/knowledge/ingest');
  assert.equal(Buffer.byteLength(up.seen.at(-1)!.body), file.length);

  const auth = await post(gw.port, '/v1/auth/login', jsonBody(100 * 1024), { auth: null });
  assert.equal(auth.status, 413);
  assert.equal((JSON.parse(auth.text) as { limit_bytes: number }).limit_bytes, 64 * 1024);

  const sandbox = await post(gw.port, '/v1/sandbox/write', jsonBody(SANDBOX_BODY_LIMIT_BYTES + MiB));
  assert.equal(sandbox.status, 413);
  assert.equal((JSON.parse(sandbox.text) as { limit_bytes: number }).limit_bytes, SANDBOX_BODY_LIMIT_BYTES);
  const small = await post(gw.port, '/v1/sandbox/write', jsonBody(1000));
  assert.equal(small.status, 200);
  assert.equal(up.seen.at(-1)!.url, '/write');
});

test('an upstream that resets the connection mid-body gives the client a JSON 502, not an empty 499', async () => {
  const resetter: Server = createServer((req) => { req.socket.destroy(); });
  await new Promise<void>((r) => resetter.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(resetter.address() as { port: number }).port}`;
  const gw2 = await start(gatewayConfig(url, issuer.jwksUrl, { maxRequestBodyBytes: 25 * MiB }));
  try {
    for (const size of [1000, 900 * 1024]) {
      const r = await post(gw2.port, '/v1/memory', jsonBody(size));
      assert.equal(r.status, 502, `size ${size}`);
      assert.deepEqual(JSON.parse(r.text), { error: 'service unavailable' });
    }
  } finally {
    await gw2.close();
    resetter.closeAllConnections();
    await new Promise<void>((r) => resetter.close(() => r()));
  }
});

/** Every service definition the supervisor runs, by name. */
const DEFINITIONS: Record<UpstreamName, ServiceDefinition<CommonServiceConfig, object>> = {
  'agent-runtime': agentRuntimeService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  audit: auditService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  auth: authService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  guardrail: guardrailService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  'inference-router': inferenceRouterService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  knowledge: knowledgeService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  memory: memoryService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  observability: observabilityService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  sandbox: sandboxService as unknown as ServiceDefinition<CommonServiceConfig, object>,
  dirauth: basicService('dirauth'),
};

test('the gateway table equals every service\'s configured limits, route by route (no drift)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-limits-'));
  // Non-default settings prove they reach the gateway through main/config.
  const stack = loadStackConfig({
    SVC_DATA_DIR: dataDir, SVC_ENV: 'test', SVC_SECRET_STORE: 'file', SVC_SCRYPT_N: '1024', SANDBOX_WARM_POOL: '0',
    SVC_GUARDRAIL_MAX_BODY_BYTES: String(3 * MiB), KNOWLEDGE_MAX_UPLOAD_BYTES: String(70 * MiB),
  });
  const ports = Object.fromEntries(SERVICE_NAMES.map((n, i) => [n, 41_000 + i])) as Record<ServiceName, number>;
  const cfgs = serviceConfigs(stack, ports);
  assert.deepEqual(cfgs.gateway.upstreamBodySettings, { guardrailMaxBodyBytes: 3 * MiB, knowledgeMaxUploadBytes: 70 * MiB });
  const limits = new BodyLimits(cfgs.gateway.upstreamBodySettings);
  let checked = 0;
  for (const name of SERVICE_NAMES) {
    if (name === 'gateway') continue;
    const def = DEFINITIONS[name];
    const routes: Array<{ method: string; url: string; bodyLimit: number | undefined }> = [];
    const recording: ServiceDefinition<CommonServiceConfig, object> = {
      ...def,
      setup: async (ctx) => {
        ctx.app.addHook('onRoute', (r) => {
          for (const method of [r.method].flat()) routes.push({ method, url: r.url, bodyLimit: r.bodyLimit });
        });
        await def.setup(ctx);
      },
    };
    const built = await buildService(recording, cfgs[name] as CommonServiceConfig, {}, { logger: pino({ level: 'silent' }) });
    try {
      const serviceLimit = (built.app as FastifyInstance).initialConfig.bodyLimit!;
      assert.equal(limits.upstream(name, 'POST', '/no/such/route'), serviceLimit, `${name}: service body limit`);
      for (const r of routes) {
        if (r.method === 'GET' || r.method === 'HEAD') continue;
        const path = r.url.replace(/:[^/]+/g, 'x').replace(/\*/g, 'x');
        assert.equal(limits.upstream(name, r.method, path), r.bodyLimit ?? serviceLimit, `${name}: ${r.method} ${r.url}`);
        checked++;
      }
    } finally { await built.close(); }
  }
  assert.ok(checked > 50, `only ${checked} routes with bodies were checked`);
  assert.equal(limits.upstream('guardrail', 'POST', '/v1/guard/input'), 3 * MiB);
  assert.equal(limits.upstream('knowledge', 'POST', '/v1/knowledge/ingest'), 71 * MiB);
});
