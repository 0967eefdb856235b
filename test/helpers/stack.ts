/**
 * Start the whole stack as `npm run serve` does (supervisor, eleven worker threads), on free ports
 * with a temporary data directory.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Supervisor } from '../../main/supervisor/index.js';
import { SERVICE_NAMES, portEnvName, type ServiceName } from '../../services/shared/services.js';
import { SseParser, type SseRecord } from '../../services/gateway/src/agui/sse.js';
import { ServiceTokenSource } from '../../services/shared/identity/service-token.js';
import { loadStackConfig, serviceConfigs } from '../../main/config/index.js';
import { startPostgres, type TestPostgres } from './postgres.js';

/** A running test stack. */
export interface TestStack {
  url: string; sup: Supervisor; dataDir: string; stop(): Promise<void>;
  /**
   * A service token of `service`'s client (`service-<name>`, its real secret of this data dir) from
   * the stack's token endpoint (issue 15 item 4), for tests that call a service port directly.
   */
  serviceToken(service: ServiceName): Promise<string>;
  /** SVC_DATABASE_URL the stack runs on (issue 21), or null on SQLite. */
  databaseUrl: string | null;
}

/** Bootstrap admin credentials used by stack tests. */
export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };

/** Start the stack; `env` adds or overrides variables. */
export async function startStack(env: Record<string, string> = {}): Promise<TestStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-stack-'));
  const base: Record<string, string> = {
    SVC_DATA_DIR: dataDir, SVC_ENV: 'test', SVC_LOG_LEVEL: 'warn', SVC_SCRYPT_N: '1024', SANDBOX_WARM_POOL: '0',
    SVC_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, SVC_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    SVC_TENANT_ID: 'acme', TURN_SEAL_INTERVAL_SECONDS: '1', TURN_SEAL_WATERMARK_SECONDS: '5', SVC_SECRET_STORE: 'file',
  };
  for (const n of SERVICE_NAMES) base[portEnvName(n)] = '0';
  // Issue 20: scripts/run-tests.mjs runs a subset again with SVC_TEST_USE_GRPC=false (every hop HTTP).
  if (process.env['SVC_TEST_USE_GRPC']) base['USE_GRPC'] = process.env['SVC_TEST_USE_GRPC'];
  // Issue 21 item 5: scripts/run-tests.mjs runs a subset again with SVC_TEST_POSTGRES=1: every store of
  // the stack in a throwaway PostgreSQL cluster of its own (pgvector), stopped with the stack.
  let pgCluster: TestPostgres | null = null;
  if (process.env['SVC_TEST_POSTGRES'] === '1' && !env['SVC_DATABASE_URL']) {
    pgCluster = await startPostgres();
    base['SVC_DATABASE_URL'] = pgCluster.url;
  }
  const stack = loadStackConfig({ ...base, ...env });
  const sup = new Supervisor(stack, { log: () => {} });
  let url: string;
  try {
    url = await sup.start();
  } catch (err) {
    await pgCluster?.stop();
    throw err;
  }
  const ports = Object.fromEntries(sup.status().map((st) => [st.name, st.port])) as Record<ServiceName, number>;
  const cfgs = serviceConfigs(stack, ports);
  const sources = new Map<ServiceName, ServiceTokenSource>();
  const serviceToken = (service: ServiceName): Promise<string> => {
    const ia = cfgs[service].internalAuth;
    if (!ia) return Promise.resolve('service-tokens-off');
    let src = sources.get(service);
    if (!src) { src = new ServiceTokenSource({ tokenUrl: ia.tokenUrl, clientId: ia.clientId, clientSecret: ia.clientSecret }); sources.set(service, src); }
    return src.get();
  };
  const stop = async (): Promise<void> => { try { await sup.stop(); } finally { await pgCluster?.stop(); } };
  return { url, sup, dataDir, stop, serviceToken, databaseUrl: stack.scaleOut.databaseUrls.default };
}

/** Log in through the gateway and return the access token. */
export async function login(url: string, username: string, password: string): Promise<string> {
  const r = await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  return (await r.json() as { access_token: string }).access_token;
}

/** A JSON answer of `callJson`: status, parsed body (text when not JSON) and headers. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export interface JsonAnswer { status: number; body: any; headers: Headers }

/** Call `baseUrl + path` with a bearer `token` and an optional JSON body; never throws on a status. */
export async function callJson(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<JsonAnswer> {
  const r = await fetch(baseUrl + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* text */ }
  return { status: r.status, body: parsed, headers: r.headers };
}

/**
 * Start a chat stream (`POST /v1/chat/stream` at `baseUrl`) as `token`; resolves `first` at the first
 * record named `until`, `done` with every record. `extra`: more body fields (e.g. `agent_id`).
 */
export function openChatStream(baseUrl: string, token: string, content: string, until: string, extra: Record<string, unknown> = {}): { first: Promise<SseRecord>; done: Promise<SseRecord[]>; turnId: Promise<string | null> } {
  let hit: (r: SseRecord) => void = () => {};
  const first = new Promise<SseRecord>((res) => { hit = res; });
  let gotTurn: (t: string | null) => void = () => {};
  const turnId = new Promise<string | null>((res) => { gotTurn = res; });
  const done = (async () => {
    const r = await fetch(`${baseUrl}/v1/chat/stream`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content }], ...extra }),
    });
    gotTurn(r.headers.get('x-svc-turn-id'));
    const parser = new SseParser();
    const records: SseRecord[] = [];
    const dec = new TextDecoder();
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
      for (const rec of parser.push(dec.decode(chunk, { stream: true }))) { records.push(rec); if (rec.event === until) hit(rec); }
    }
    for (const rec of parser.end()) records.push(rec);
    return records;
  })();
  done.catch(() => gotTurn(null));
  return { first, done, turnId };
}
