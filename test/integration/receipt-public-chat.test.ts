/**
 * Issue 22 "Done when", from outside on the whole stack (gateway, agent runtime, audit; scripted
 * provider): a sealed chat's bundle carries `public_signature`; an independent node:crypto Ed25519
 * check with the key from `GET /v1/receipts/keys` (no bearer, through the gateway) accepts it;
 * changing an event or the signature makes it fail; `svc-verify` with only `--public-key <keys
 * URL>` accepts the good bundle and refuses the tampered one; the periodic checkpoint is served
 * through the gateway without a bearer and carried by a later export; after a receipt key rotation
 * (`POST /v1/admin/secrets/receipt/rotate`) the old bundle still verifies under its kid.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { eventually } from '../helpers/runtime-harness.js';
import { parseCheckpointText, parseNote, parsePublicKeys, verifyBundlePublicSync, type ReceiptBundle } from '../../services/audit/src/verifier/index.js';
import { runCli, runCliAsync, type CliIo } from '../../scripts/svc-verify.js';
import { nodeEd25519Verify } from '../../scripts/svc-verify-keys.js';

let stack: TestStack | null = null;
let llm: ScriptedLlm | null = null;
after(async () => { await stack?.stop(); await llm?.close(); });

type Jwk = { kty: string; crv: string; x: string; kid: string; retired_at?: string };

function independentlyValid(b: ReceiptBundle, keys: Jwk[]): boolean {
  const env = b.proof.envelope;
  const jwk = keys.find((k) => k.kid === env.public_signature?.kid);
  if (!jwk || !env.public_signature) return false;
  const payload = Object.fromEntries(Object.entries(env.payload).sort(([a], [c]) => (a < c ? -1 : 1)));
  const msg = Buffer.from(JSON.stringify({ audit_log_id: env.audit_log_id, audit_seq: env.audit_seq, payload }), 'utf8');
  return verify(null, msg, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }), Buffer.from(env.public_signature.sig, 'base64url'));
}

function cliIo(files: Record<string, string>): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, readFile: (p) => files[p]!, out: (l) => lines.push(l), err: (l) => lines.push(l) };
}

test('a sealed chat receipt verifies with the published public key alone, across a key rotation', async () => {
  llm = await startScriptedLlm({ script: () => ({ content: 'ok' }) });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AUDIT_CHECKPOINT_INTERVAL_SECONDS: '1' });
  const token = await login(stack.url, ADMIN.email, ADMIN.password);
  const api = (method: string, path: string, body?: unknown) => callJson(stack!.url, token, method, path, body);
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status < 300, JSON.stringify(prov.body));
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  const chatBundle = async (text: string): Promise<ReceiptBundle> => {
    const r = await api('POST', '/v1/chat', { messages: [{ role: 'user', content: text }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const turn = r.headers.get('x-svc-turn-id')!;
    return eventually(async () => { const b = await api('GET', `/v1/receipts/${turn}/bundle`); return b.status === 200 ? b.body as ReceiptBundle : null; }, 20_000, 200);
  };

  const bundle = await chatBundle('hello receipts');
  const ps = bundle.proof.envelope.public_signature;
  assert.ok(ps, 'the sealed chat bundle carries public_signature');
  assert.equal(ps.alg, 'Ed25519');
  const keysRes = await fetch(`${stack.url}/v1/receipts/keys`);
  assert.equal(keysRes.status, 200, 'the keys need no bearer through the gateway');
  const keys0 = (await keysRes.json() as { keys: Jwk[] }).keys;
  assert.ok(independentlyValid(bundle, keys0));
  const evTampered = structuredClone(bundle);
  evTampered.detail.events[0]!.payload_json = '{"x":1}';
  const sigTampered = structuredClone(bundle);
  const sig = Buffer.from(ps.sig, 'base64url'); sig[0] = sig[0]! ^ 0x80;
  for (const e of [sigTampered.detail.envelope, sigTampered.proof.envelope]) e.public_signature = { ...ps, sig: sig.toString('base64url') };
  assert.equal(independentlyValid(sigTampered, keys0), false);

  // svc-verify with only the keys URL of the workstation.
  const files = { 'good.json': JSON.stringify(bundle), 'ev.json': JSON.stringify(evTampered), 'sig.json': JSON.stringify(sigTampered) };
  const keysUrl = `${stack.url}/v1/receipts/keys`;
  const io = cliIo(files);
  assert.equal(await runCliAsync(['--receipt', 'good.json', '--public-key', keysUrl], io), 0, io.lines.join('\n'));
  for (const f of ['ev.json', 'sig.json']) {
    const bio = cliIo(files);
    assert.equal(await runCliAsync(['--receipt', f, '--public-key', keysUrl], bio), 1, bio.lines.join('\n'));
  }

  // The periodic checkpoint (every second here) covers the anchor; served as text without a bearer.
  const note = await eventually(async () => {
    const r = await fetch(`${stack!.url}/v1/receipts/checkpoints/latest`);
    if (r.status !== 200) return null;
    const text = await r.text();
    return parseCheckpointText(parseNote(text).text).size >= bundle.proof.envelope.audit_seq ? { text, type: r.headers.get('content-type') } : null;
  }, 15_000, 250);
  assert.match(note.type ?? '', /^text\/plain/);
  assert.match(parseCheckpointText(parseNote(note.text).text).origin, /\/svc-receipts\/acme$/);
  const again = (await api('GET', `/v1/receipts/${bundle.detail.receipt.turn_id}/bundle`)).body as ReceiptBundle;
  assert.ok(again.proof.checkpoint, 'a later export carries the first checkpoint at or after the anchor');
  const ring0 = parsePublicKeys({ keys: keys0 });
  const withCp = verifyBundlePublicSync(again, { publicKeys: ring0, ed25519: nodeEd25519Verify });
  assert.equal(withCp.ok, true, JSON.stringify(withCp.checks.filter((c) => !c.ok && !c.skipped)));
  assert.ok(withCp.checked.includes('checkpoint'));

  // Rotate the receipt key through the admin: old bundles still verify under their kid.
  assert.equal((await api('POST', '/v1/admin/secrets/receipt/rotate')).status, 200);
  const keys1 = (await (await fetch(keysUrl)).json() as { keys: Jwk[] }).keys;
  assert.equal(keys1.length, 2);
  assert.ok(keys1.find((k) => k.kid === ps.kid)?.retired_at, 'the old key stays published, retired');
  const ring1 = parsePublicKeys({ keys: keys1 });
  assert.equal(verifyBundlePublicSync(again, { publicKeys: ring1, ed25519: nodeEd25519Verify }).ok, true);
  assert.ok(independentlyValid(bundle, keys1));
  const later = await chatBundle('after the rotation');
  assert.equal(later.proof.envelope.public_signature?.kid, keys1[0]!.kid);
  assert.notEqual(keys1[0]!.kid, ps.kid);
  const lio = cliIo({ 'later.json': JSON.stringify(later), 'k.json': JSON.stringify({ keys: keys1 }) });
  assert.equal(runCli(['--receipt', 'later.json', '--public-key', 'k.json'], lio), 0, lio.lines.join('\n'));
});
