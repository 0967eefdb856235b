/**
 * Issue 19 item 4 on the real stack: tampered, unsigned and wrongly signed bundles are refused
 * before anything changes (400 `bad_signature` / `bad_bundle`); a good one is staged, applied at the
 * next start of the same data directory, and a rollback restores the previous version.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, callJson, login, startStack, type JsonAnswer, type TestStack } from '../helpers/stack.js';
import { writeBundle } from '../../main/update/write-bundle.js';
import { BUNDLE_MAGIC } from '../../main/update/bundle.js';

const work = mkdtempSync(join(tmpdir(), 'svc-bundle-'));
const dataDir = mkdtempSync(join(tmpdir(), 'svc-update-data-'));
const trusted = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const env = { SVC_DATA_DIR: dataDir, SVC_UPDATE_PUBLIC_KEYS: trusted.publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
let stack: TestStack | null = null;
after(async () => { await stack?.stop(); rmSync(work, { recursive: true, force: true }); rmSync(dataDir, { recursive: true, force: true }); });

async function bundle(version: string, key = trusted.privateKey): Promise<Buffer> {
  const dir = join(work, `src-${version}`);
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'dist', 'main.js'), `export const version = '${version}';\n`);
  writeFileSync(join(dir, 'VERSION'), version);
  const out = join(work, `${version}-${Math.random()}.svcupd`);
  await writeBundle(dir, version, key.export({ format: 'pem', type: 'pkcs8' }).toString(), out);
  return readFileSync(out);
}

async function upload(url: string, token: string, body: Buffer): Promise<JsonAnswer> {
  const r = await fetch(`${url}/v1/admin/update/bundle`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body });
  return { status: r.status, body: await r.json(), headers: r.headers };
}

async function restart(): Promise<string> {
  await stack?.stop();
  stack = await startStack(env);
  return login(stack.url, ADMIN.email, ADMIN.password);
}

test('bad bundles are refused, a good one applies at the next start, rollback restores', async () => {
  let token = await restart();
  const url = (): string => stack!.url;
  const good = await bundle('9.9.9');

  // A file byte changed (the signed manifest intact): bad_bundle.
  const tampered = Buffer.from(good); tampered[tampered.length - 3] ^= 0x01;
  let r = await upload(url(), token, tampered);
  assert.equal(r.status, 400); assert.equal(r.body.code, 'bad_bundle');
  // The manifest changed: its signature no longer verifies.
  const forged = Buffer.from(good); const at = forged.indexOf('9.9.9', BUNDLE_MAGIC.length); forged[at] = '8'.charCodeAt(0);
  r = await upload(url(), token, forged);
  assert.equal(r.status, 400); assert.equal(r.body.code, 'bad_signature');
  // Signed by a key nobody trusts.
  r = await upload(url(), token, await bundle('9.9.9', stranger.privateKey));
  assert.equal(r.status, 400); assert.equal(r.body.code, 'bad_signature');
  // No signature at all.
  const mlen = good.readUInt32BE(BUNDLE_MAGIC.length);
  const unsigned = Buffer.concat([good.subarray(0, BUNDLE_MAGIC.length + 4 + mlen), Buffer.alloc(4)]);
  r = await upload(url(), token, unsigned);
  assert.equal(r.status, 400); assert.equal(r.body.code, 'bad_signature');
  // Not a bundle.
  r = await upload(url(), token, Buffer.from('hello'));
  assert.equal(r.status, 400); assert.equal(r.body.code, 'bad_bundle');
  let d = await callJson(url(), token, 'GET', '/v1/admin/deploy');
  assert.equal(d.body.pending, null, 'nothing staged by refused bundles');
  assert.equal(existsSync(join(dataDir, 'updates', 'staging', '9.9.9')), false);

  r = await upload(url(), token, good);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  d = await callJson(url(), token, 'GET', '/v1/admin/deploy');
  assert.equal(d.body.pending.kind, 'update'); assert.equal(d.body.pending.version, '9.9.9');
  assert.equal(d.body.deployed, null);
  const u = await callJson(url(), token, 'GET', '/v1/admin/update');
  assert.equal(u.status, 200); assert.equal(u.body.manifest.status, 'not_configured');
  assert.equal((await callJson(url(), token, 'POST', '/v1/admin/update/rollback')).body.code, 'no_previous_version');

  token = await restart();
  d = await callJson(url(), token, 'GET', '/v1/admin/deploy');
  assert.equal(d.body.deployed.version, '9.9.9'); assert.equal(d.body.pending, null);
  assert.equal(readFileSync(join(d.body.deployed.dir, 'VERSION'), 'utf8'), '9.9.9');
  assert.equal((await callJson(url(), token, 'GET', '/v1/admin/stack')).body.app.deployed_update, '9.9.9');

  assert.equal((await upload(url(), token, await bundle('9.9.10'))).status, 202);
  token = await restart();
  d = await callJson(url(), token, 'GET', '/v1/admin/deploy');
  assert.equal(d.body.deployed.version, '9.9.10'); assert.equal(d.body.previous.version, '9.9.9');

  r = await callJson(url(), token, 'POST', '/v1/admin/update/rollback');
  assert.equal(r.status, 202); assert.equal(r.body.staged.kind, 'rollback');
  token = await restart();
  d = await callJson(url(), token, 'GET', '/v1/admin/deploy');
  assert.equal(d.body.deployed.version, '9.9.9', 'rolled back'); assert.equal(d.body.previous.version, '9.9.10');
  assert.equal(readFileSync(join(d.body.deployed.dir, 'VERSION'), 'utf8'), '9.9.9');
});
