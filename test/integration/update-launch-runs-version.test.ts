/**
 * Issue 19 item 4, from outside: an applied update runs. A real code bundle (the compiled tree as
 * `dist/` + a `package.json` with a changed version, signed by scripts/sign-update-bundle.ts) is
 * uploaded to a running `npm run serve` (main/headless.js), which is restarted: the launcher runs the
 * installed version and `GET /v1/admin/deploy` / `stack` report the version read from the running
 * tree. A bundle whose entry fails to start is rolled back automatically to the previous version,
 * and the failure is shown by `GET /v1/admin/deploy`; `POST /v1/admin/update/rollback` then goes
 * back to the shipped app.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES, portEnvName } from '../../services/shared/services.js';
import { ADMIN, callJson, login } from '../helpers/stack.js';
import { stageBundle } from '../../main/update/bundle.js';

const built = fileURLToPath(new URL('../..', import.meta.url)); // the compiled tree (dist/ or .build/<x>/)
/** The app's package.json: beside the compiled tree when one was linked there, else the repo's (above dist/). */
const packageJson = existsSync(join(built, 'package.json')) ? join(built, 'package.json') : join(built, '..', 'package.json');
const work = mkdtempSync(join(tmpdir(), 'svc-launch-'));
const dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-launch-data-')));
const keys = generateKeyPairSync('ed25519');
const keyFile = join(work, 'publisher.key');
writeFileSync(keyFile, keys.privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
const appVersion = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
const trusted = [keys.publicKey.export({ format: 'pem', type: 'spki' }).toString()];

const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  SVC_DATA_DIR: dataDir, SVC_ENV: 'test', SVC_LOG_LEVEL: 'warn', SVC_SCRYPT_N: '1024', SANDBOX_WARM_POOL: '0',
  SVC_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, SVC_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, SVC_TENANT_ID: 'acme', SVC_SECRET_STORE: 'file',
  SVC_UPDATE_PUBLIC_KEYS: keys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), SVC_UPDATE_READY_TIMEOUT_MS: '60000',
};
for (const n of SERVICE_NAMES) env[portEnvName(n)] = '0';
delete env.SVC_LAUNCHED_VERSION;

let child: ChildProcess | null = null;
after(async () => { await stop(); rmSync(work, { recursive: true, force: true }); rmSync(dataDir, { recursive: true, force: true }); });

/** Start `node <built>/main/headless.js`; resolves with the gateway URL and the stderr seen so far. */
function serve(): Promise<{ url: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [join(built, 'main', 'headless.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    let out = ''; let err = '';
    c.stderr!.on('data', (b: Buffer) => { err += b.toString(); });
    c.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /svc ready (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, stderr: () => err });
    });
    c.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err.slice(-2000)}`)));
  });
}

async function stop(): Promise<void> {
  const c = child; child = null;
  if (!c || c.exitCode !== null) return;
  const done = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  await done;
}

/** A code bundle of the compiled tree under `dist/` with `version`; `entryBody` replaces the headless entry. */
function codeBundle(version: string, entryBody?: string): string {
  const src = join(work, `src-${version}`);
  mkdirSync(join(src, 'dist'), { recursive: true });
  for (const top of ['main', 'services', 'native']) {
    cpSync(join(built, top), join(src, 'dist', top), { recursive: true, dereference: true, filter: (f) => !f.endsWith('.map') });
  }
  if (entryBody !== undefined) writeFileSync(join(src, 'dist', 'main', 'headless.js'), entryBody);
  const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as Record<string, unknown>;
  writeFileSync(join(src, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  const out = join(work, `${version}.svcupd`);
  execFileSync(process.execPath, [join(built, 'scripts', 'sign-update-bundle.js'), 'sign', '--key', keyFile, '--version', version, '--out', out, src]);
  return out;
}

test('an applied code bundle runs after a restart; one that cannot start rolls back', async () => {
  // Staged as POST /v1/admin/update/bundle stages it (that route is proven by admin-ops-update-bundle).
  await stageBundle(dataDir, codeBundle('9.9.9-launch'), trusted);
  let s = await serve();
  let token = await login(s.url, ADMIN.email, ADMIN.password);
  let d = await callJson(s.url, token, 'GET', '/v1/admin/deploy');
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.running_version, '9.9.9-launch', `the running tree is the installed version: ${JSON.stringify(d.body)} ${s.stderr()}`);
  assert.equal(d.body.running_installed_version, true);
  assert.notEqual(d.body.running_version, appVersion);
  assert.equal(d.body.running_root, join(dataDir, 'updates', 'versions', '9.9.9-launch'));
  assert.equal((await callJson(s.url, token, 'GET', '/v1/admin/stack')).body.app.version, '9.9.9-launch');
  assert.match(s.stderr(), /running installed version 9\.9\.9-launch/);
  await stop();

  // A version whose entry exits at once: rolled back to 9.9.9-launch, the failure recorded.
  await stageBundle(dataDir, codeBundle('9.9.10-broken', 'process.stderr.write("broken build\\n"); process.exit(3);\n'), trusted);
  s = await serve();
  token = await login(s.url, ADMIN.email, ADMIN.password);
  d = await callJson(s.url, token, 'GET', '/v1/admin/deploy');
  assert.equal(d.body.running_version, '9.9.9-launch');
  assert.equal(d.body.deployed.version, '9.9.9-launch');
  assert.equal(d.body.last_failure.version, '9.9.10-broken');
  assert.equal(d.body.last_failure.rolled_back_to, '9.9.9-launch');
  assert.match(d.body.last_failure.reason, /exited before ready \(code 3\)/);
  assert.match(s.stderr(), /broken build/);
  // The way back from the first installed version: the shipped app (in-process, no launch).
  const rb = await callJson(s.url, token, 'POST', '/v1/admin/update/rollback');
  assert.equal(rb.status, 202, JSON.stringify(rb.body));
  assert.equal(rb.body.staged.to, '(shipped app)');
  await stop();
  s = await serve();
  token = await login(s.url, ADMIN.email, ADMIN.password);
  d = await callJson(s.url, token, 'GET', '/v1/admin/deploy');
  assert.equal(d.body.running_version, appVersion);
  assert.equal(d.body.running_installed_version, false);
  assert.equal(d.body.deployed, null);
  assert.equal(d.body.previous.version, '9.9.9-launch');
  await stop();
});
