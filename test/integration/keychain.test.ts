/**
 * Provider API keys in the real OS keychain (issue 4 item 1; DESIGN.md "Real parts": keytar, a
 * Secret Service for tests from gnome-keyring-daemon inside dbus-run-session).
 *
 * The test re-runs this file as a child under `dbus-run-session` with a fresh, unlocked
 * gnome-keyring (HOME and XDG dirs in a temp folder, so no real keyring is touched). The child
 * starts the real router with `start(cfg)`, registers a provider with an api_key against the
 * scripted OpenAI-compatible server, and reports what it saw; the parent asserts. Skipped, saying
 * why, when dbus-run-session, gnome-keyring-daemon or keytar is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { start as startRouter } from '../../services/inference-router/src/index.js';
import { KEYCHAIN_SERVICE } from '../../services/inference-router/src/store/secret-store.js';
import type { KeytarLike } from '../../native/keychain.js';
import { startScriptedLlm } from '../helpers/scripted-llm.js';
import { routerConfig, stamp, testKeys } from '../helpers/router-config.js';

const CHILD_FLAG = 'SVC_KEYCHAIN_TEST_CHILD';
const KEY = 'sk-keychain-secret-7f3a9c';

/** What the child saw. */
interface Observed {
  registerStatus: number;
  registerLeaksKey: boolean;
  registerSecretStore: string;
  listSecretStore: string;
  listLeaksKey: boolean;
  keychainValue: string | null;
  keyFileExists: boolean;
  keyFileHasProvider: boolean;
  upstreamAuth: (string | undefined)[];
  chatStatuses: number[];
  afterDeleteKeychainValue: string | null;
  logsLeakKey: boolean;
}

async function loadKeytar(): Promise<KeytarLike | null> {
  const name = 'keytar';
  try {
    const mod = await import(name) as { default?: KeytarLike } & KeytarLike;
    return mod.default ?? mod;
  } catch { return null; }
}

/** The child: real router, real keychain, one provider with a key. */
async function child(): Promise<void> {
  const keytar = (await loadKeytar())!;
  const keys = testKeys();
  const llm = await startScriptedLlm();
  const cfg = routerConfig(keys, {}, { localEngineEnabled: false, secretStore: 'auto' });
  const admin = stamp(keys, { id: 'admin-1', roles: ['admin', 'user'] });
  const call = async (base: string, path: string, method = 'GET', body?: unknown, who = admin): Promise<Response> => fetch(base + path, {
    method, headers: { 'x-svc-principal': who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const chat = async (base: string): Promise<number> => (await call(base, '/v1/chat/completions', 'POST', { model: 'default', messages: [{ role: 'user', content: 'hi' }] }, stamp(keys))).status;

  let router = await startRouter(cfg);
  let R = `http://127.0.0.1:${router.port}`;
  const reg = await call(R, '/v1/internal/providers', 'POST', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions', api_key: KEY });
  const regText = await reg.text();
  const p = JSON.parse(regText) as { id: string; secret_store: string };
  const listText = await (await call(R, '/v1/internal/providers')).text();
  const keyFile = join(cfg.dataDir, 'secrets', 'inference-provider-keys.json');
  await call(R, '/v1/internal/roles/default', 'PUT', { provider_id: p.id, model: 'scripted-model' });
  const chatStatuses = [await chat(R)];
  // A restart reads the key back from the keychain.
  await router.close();
  router = await startRouter(cfg);
  R = `http://127.0.0.1:${router.port}`;
  chatStatuses.push(await chat(R));
  const observed: Observed = {
    registerStatus: reg.status,
    registerLeaksKey: regText.includes(KEY),
    registerSecretStore: p.secret_store,
    listSecretStore: (JSON.parse(listText) as { secret_store: string }).secret_store,
    listLeaksKey: listText.includes(KEY),
    keychainValue: await keytar.getPassword(KEYCHAIN_SERVICE, p.id),
    keyFileExists: existsSync(keyFile),
    keyFileHasProvider: existsSync(keyFile) && readFileSync(keyFile, 'utf8').includes(p.id),
    upstreamAuth: llm.requests.filter((r) => r.path === '/chat/completions').map((r) => r.headers.authorization),
    chatStatuses,
    afterDeleteKeychainValue: null,
    logsLeakKey: false,
  };
  await call(R, `/v1/internal/providers/${p.id}`, 'DELETE');
  observed.afterDeleteKeychainValue = await keytar.getPassword(KEYCHAIN_SERVICE, p.id);
  await router.close();
  await llm.close();
  observed.logsLeakKey = existsSync(cfg.logDir) && readdirSync(cfg.logDir).some((f) => readFileSync(join(cfg.logDir, f), 'utf8').includes(KEY));
  process.stdout.write(`OBSERVED ${JSON.stringify(observed)}\n`);
}

function missingTool(): string | null {
  for (const tool of ['dbus-run-session', 'gnome-keyring-daemon']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (apt-get install dbus gnome-keyring)`;
  }
  return null;
}

if (process.env[CHILD_FLAG] === '1') {
  await child();
} else {
  const missing = missingTool() ?? ((await loadKeytar()) ? null : 'keytar does not load (optional dependency; needs libsecret-1-dev to build)');
  test('provider API keys live in the OS keychain when a Secret Service runs, never in the file or a response', { skip: missing ?? false, timeout: 60_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-keyring-home-'));
    const runtime = join(home, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    const env: NodeJS.ProcessEnv = {
      ...process.env, [CHILD_FLAG]: '1', HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CACHE_HOME: join(home, 'cache'),
      XDG_CONFIG_HOME: join(home, 'config'), XDG_RUNTIME_DIR: runtime,
    };
    delete env.DBUS_SESSION_BUS_ADDRESS;
    const script = 'echo -n test-keyring-pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$1" "$2"';
    const proc = spawn('dbus-run-session', ['--', 'sh', '-c', script, 'sh', process.execPath, fileURLToPath(import.meta.url)], { env, cwd: process.cwd() });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    proc.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const code = await new Promise<number | null>((resolve) => { proc.on('close', resolve); });
    const line = out.split('\n').find((l) => l.startsWith('OBSERVED '));
    assert.ok(line, `child exited ${code} without a report\nstdout: ${out}\nstderr: ${err}`);
    const o = JSON.parse(line.slice('OBSERVED '.length)) as Observed;
    assert.equal(o.registerStatus, 201);
    assert.equal(o.registerSecretStore, 'os_keychain', 'the provider view reports the keychain');
    assert.equal(o.listSecretStore, 'os_keychain', 'the provider list reports the keychain');
    assert.equal(o.registerLeaksKey, false, 'key not in the registration answer');
    assert.equal(o.listLeaksKey, false, 'key not in the provider list');
    assert.equal(o.keychainValue, KEY, 'keytar finds the key in the Secret Service');
    assert.equal(o.keyFileHasProvider, false, 'the encrypted file does not hold it');
    assert.deepEqual(o.chatStatuses, [200, 200], 'chat answers before and after a restart');
    assert.deepEqual(o.upstreamAuth, [`Bearer ${KEY}`, `Bearer ${KEY}`], 'the key read from the keychain reaches the provider, also after a restart');
    assert.equal(o.afterDeleteKeychainValue, null, 'deleting the provider deletes its keychain entry');
    assert.equal(o.logsLeakKey, false, 'key not in the logs');
    assert.equal(code, 0, err);
  });
}
