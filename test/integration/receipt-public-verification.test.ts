/**
 * Receipts a reviewer can verify without the secret (issue 22), on the audit service (port 0, temp
 * data dir, real SQLite): a sealed bundle carries `public_signature`, which an independent
 * node:crypto Ed25519 check with the key of `GET /v1/receipts/keys` accepts; changing an event, the
 * Merkle root or the signature makes the public-key verifier fail; `svc-verify` with only
 * `--public-key` (file or keys URL) accepts the good bundle and refuses tampered ones; after a
 * receipt key rotation the old bundle still verifies under its kid; a manual seal signs a
 * checkpoint that parses as a C2SP signed note, verifies under the published key and is carried
 * by later exports as `proof.checkpoint`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { start } from '../../services/audit/src/index.js';
import { rotateReceiptKey } from '../../services/audit/src/store/receipt-keys.js';
import {
  envelopeSigningText, noteKeyHash, parseCheckpointText, parseNote, parsePublicKeys, pureHashProvider, verifyBundlePublicSync, toHex,
  type PublicVerificationReport, type ReceiptBundle,
} from '../../services/audit/src/verifier/index.js';
import { runCli, runCliAsync, type CliIo } from '../../scripts/svc-verify.js';
import { nodeEd25519Verify } from '../../scripts/svc-verify-keys.js';
import { ADMIN, KEY_V1, SERVICE, TENANT, USER, auditConfig, call, event, newId, removeDir } from '../helpers/audit.js';

type Jwk = { kty: string; crv: string; x: string; kid: string; created_at: string; retired_at?: string };
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const failing = (r: PublicVerificationReport): string[] => r.checks.filter((c) => !c.ok && !c.skipped).map((c) => c.id);

function cliIo(files: Record<string, string>): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, readFile: (p) => { if (!(p in files)) throw new Error(`no file ${p}`); return files[p]!; }, out: (l) => lines.push(l), err: (l) => lines.push(l) };
}

async function sealTurn(base: string): Promise<string> {
  const turn = newId();
  const evs = [event(turn, 'turn_started', { path: '/v1/chat' }), event(turn, 'model_invoked', { i: 1 }), event(turn, 'turn_sealed', { status: 200 })];
  assert.equal((await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: evs })).body.accepted, 3);
  return turn;
}

/** An independent check: node:crypto alone, the JWK from the keys route, the bytes the format names. */
function independentlyValid(bundle: ReceiptBundle, keys: Jwk[]): boolean {
  const ps = bundle.proof.envelope.public_signature!;
  const jwk = keys.find((k) => k.kid === ps.kid);
  if (!jwk) return false;
  const env = bundle.proof.envelope;
  const msg = Buffer.from(JSON.stringify({ audit_log_id: env.audit_log_id, audit_seq: env.audit_seq, payload: sortKeys(env.payload) }), 'utf8');
  return verify(null, msg, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }), Buffer.from(ps.sig, 'base64url'));
}

function sortKeys(o: object): object {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}

test('public signatures, checkpoints and svc-verify --public-key on the audit service', async (t) => {
  const cfg = auditConfig({ checkpointIntervalSeconds: 3600 });
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  const base = `http://127.0.0.1:${svc.port}`;

  // The published key set: exactly the JWK fields, no bearer needed.
  const keysRes = await fetch(`${base}/v1/receipts/keys`);
  assert.equal(keysRes.status, 200);
  const keys0 = (await keysRes.json() as { keys: Jwk[] }).keys;
  assert.equal(keys0.length, 1);
  assert.deepEqual(Object.keys(keys0[0]!).sort(), ['created_at', 'crv', 'kid', 'kty', 'x']);

  // No checkpoint yet: 404 with a code, and the first bundle says checkpoint null.
  const none = await call(base, 'GET', '/v1/receipts/checkpoints/latest', {});
  assert.equal(none.status, 404);
  assert.equal(none.body.code, 'checkpoint_not_found');

  const turn = await sealTurn(base);
  const bundle = (await call(base, 'GET', `/v1/receipts/${turn}/bundle`, USER())).body as ReceiptBundle;
  assert.equal(bundle.proof.format, '2');
  assert.equal(bundle.proof.checkpoint, null);
  const ps = bundle.proof.envelope.public_signature!;
  assert.equal(ps.alg, 'Ed25519');
  assert.equal(ps.kid, keys0[0]!.kid);
  assert.match(ps.sig, /^[A-Za-z0-9_-]{86}$/);
  assert.deepEqual(bundle.detail.envelope, bundle.proof.envelope, 'detail and proof carry the same envelope');
  assert.ok(independentlyValid(bundle, keys0), 'node:crypto alone accepts the signature');
  assert.equal(JSON.stringify({ audit_log_id: bundle.proof.envelope.audit_log_id, audit_seq: bundle.proof.envelope.audit_seq, payload: sortKeys(bundle.proof.envelope.payload) }),
    envelopeSigningText(bundle.proof.envelope), 'the signed text is JCS({payload, audit_log_id, audit_seq})');

  // The verifier with only the public key: every check it can make holds; the HMAC ones are named as not made.
  const ring = parsePublicKeys({ keys: keys0 });
  const good = verifyBundlePublicSync(bundle, { publicKeys: ring, ed25519: nodeEd25519Verify });
  assert.equal(good.ok, true, JSON.stringify(good.checks.filter((c) => !c.ok)));
  assert.deepEqual(good.not_checked, ['envelope_hmac', 'suffix_hmac', 'checkpoint']);
  assert.ok(good.checked.includes('envelope_signature') && good.checked.includes('merkle_root') && good.checked.includes('suffix_continuity'));

  // Tampering: an event, the Merkle root, the signature.
  const evTampered = clone(bundle);
  evTampered.detail.events[1]!.payload_json = '{"i":2}';
  assert.ok(failing(verifyBundlePublicSync(evTampered, { publicKeys: ring, ed25519: nodeEd25519Verify })).includes('leaves'));
  const rootTampered = clone(bundle);
  for (const env of [rootTampered.proof.envelope, rootTampered.detail.envelope]) env.payload.merkle_root = 'ab'.repeat(32);
  const rootReport = verifyBundlePublicSync(rootTampered, { publicKeys: ring, ed25519: nodeEd25519Verify });
  assert.equal(rootReport.ok, false);
  assert.ok(failing(rootReport).includes('merkle_root') && failing(rootReport).includes('envelope_signature'));
  assert.equal(independentlyValid(rootTampered, keys0), false);
  const sigTampered = clone(bundle);
  const bytes = Buffer.from(ps.sig, 'base64url');
  bytes[10] = bytes[10]! ^ 1;
  for (const env of [sigTampered.proof.envelope, sigTampered.detail.envelope]) env.public_signature = { ...ps, sig: bytes.toString('base64url') };
  assert.deepEqual(failing(verifyBundlePublicSync(sigTampered, { publicKeys: ring, ed25519: nodeEd25519Verify })), ['envelope_signature']);
  assert.equal(independentlyValid(sigTampered, keys0), false);

  // svc-verify with only --public-key: the good bundle exits 0 and says what it could not check; tampered ones exit 1.
  const files = { 'b.json': JSON.stringify(bundle), 't.json': JSON.stringify(evTampered), 's.json': JSON.stringify(sigTampered), 'k.json': JSON.stringify(keys0[0]) };
  const io = cliIo(files);
  assert.equal(runCli(['--receipt', 'b.json', '--public-key', 'k.json'], io), 0, io.lines.join('\n'));
  assert.ok(io.lines.some((l) => /^SKIP\s+envelope_hmac/.test(l)));
  assert.ok(io.lines.some((l) => l.startsWith('could not check: envelope_hmac, suffix_hmac, checkpoint')));
  assert.ok(io.lines.some((l) => l.startsWith('VERIFIED')));
  for (const bad of ['t.json', 's.json']) {
    const bio = cliIo(files);
    assert.equal(runCli(['--receipt', bad, '--public-key', 'k.json'], bio), 1, bio.lines.join('\n'));
    assert.ok(bio.lines.some((l) => l.startsWith('NOT VERIFIED')));
  }
  // With --key as well, the HMACs are checked too and nothing is skipped but the checkpoint.
  const hio = cliIo(files);
  assert.equal(runCli(['--receipt', 'b.json', '--public-key', 'k.json', '--key-version', 'v1', '--key', KEY_V1, '--json'], hio), 0);
  assert.deepEqual(JSON.parse(hio.lines.join('\n')).not_checked, ['checkpoint']);
  // The keys URL form (the service on loopback: allowed for the reviewer's CLI); link-local is refused.
  const uio = cliIo(files);
  assert.equal(await runCliAsync(['--receipt', 'b.json', '--public-key', `${base}/v1/receipts/keys`], uio), 0, uio.lines.join('\n'));
  const lio = cliIo(files);
  assert.equal(await runCliAsync(['--receipt', 'b.json', '--public-key', 'http://169.254.169.254/v1/receipts/keys'], lio), 2);
  assert.match(lio.lines.join('\n'), /link-local/);

  // A manual seal signs a checkpoint of the new head: a C2SP signed note under the published key.
  const open = newId();
  await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [event(open, 'turn_started', {})] });
  const sealed = await call(base, 'POST', `/v1/admin/audit/turns/${open}/seal`, ADMIN(), {});
  assert.equal(sealed.status, 200, JSON.stringify(sealed.body));
  const latest = await fetch(`${base}/v1/receipts/checkpoints/latest`);
  assert.equal(latest.status, 200);
  assert.match(latest.headers.get('content-type') ?? '', /^text\/plain/);
  const noteText = await latest.text();
  const note = parseNote(noteText);
  const cp = parseCheckpointText(note.text);
  const openBundle = (await call(base, 'GET', `/v1/receipts/${open}/bundle`, ADMIN())).body as ReceiptBundle;
  assert.equal(cp.size, openBundle.proof.envelope.audit_seq, 'checkpoint at the manual seal\'s anchor');
  assert.equal(toHex(cp.hash), openBundle.proof.envelope.audit_chain_hash);
  assert.ok(cp.origin.endsWith(`/svc-receipts/${TENANT}`), cp.origin);
  assert.equal(note.sigs.length, 1);
  assert.equal(note.sigs[0]!.name, cp.origin);
  const raw = Buffer.from(keys0[0]!.x, 'base64url');
  assert.equal(note.sigs[0]!.keyHash, noteKeyHash(cp.origin, raw, pureHashProvider));
  assert.ok(verify(null, Buffer.from(note.text, 'utf8'), createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: keys0[0]!.x }, format: 'jwk' }), note.sigs[0]!.sig));
  assert.ok(cp.extensions.some((e) => e.startsWith('timestamp ')));
  const bySeq = await fetch(`${base}/v1/receipts/checkpoints/${cp.size}`);
  assert.equal(await bySeq.text(), noteText);
  assert.equal((await call(base, 'GET', '/v1/receipts/checkpoints/999999', {})).status, 404);
  assert.equal((await call(base, 'GET', '/v1/receipts/checkpoints/abc', {})).status, 400);

  // The first bundle, exported again, now carries that checkpoint (the first at or after its anchor) and it verifies.
  const again = (await call(base, 'GET', `/v1/receipts/${turn}/bundle`, USER())).body as ReceiptBundle;
  assert.equal(again.proof.checkpoint, noteText);
  const withCp = verifyBundlePublicSync(again, { publicKeys: ring, ed25519: nodeEd25519Verify });
  assert.equal(withCp.ok, true, JSON.stringify(withCp.checks.filter((c) => !c.ok)));
  assert.deepEqual(withCp.not_checked, ['envelope_hmac', 'suffix_hmac']);
  assert.equal(withCp.checkpoint?.size, cp.size);
  // A checkpoint whose text changed (a different seq) fails its signature.
  const cpTampered = clone(again);
  cpTampered.proof.checkpoint = noteText.replace(`\n${cp.size}\n`, `\n${cp.size + 1}\n`);
  assert.ok(failing(verifyBundlePublicSync(cpTampered, { publicKeys: ring, ed25519: nodeEd25519Verify })).includes('checkpoint'));

  // Rotation: a new key signs from now on; the old bundle still verifies under its kid with the new set.
  rotateReceiptKey(cfg.dataDir);
  const keys1 = (await call(base, 'GET', '/v1/receipts/keys', {})).body.keys as Jwk[];
  assert.equal(keys1.length, 2);
  assert.equal(keys1[1]!.kid, keys0[0]!.kid);
  assert.ok(keys1[1]!.retired_at);
  const ring1 = parsePublicKeys({ keys: keys1 });
  assert.equal(verifyBundlePublicSync(again, { publicKeys: ring1, ed25519: nodeEd25519Verify }).ok, true);
  const turn2 = await sealTurn(base);
  const b2 = (await call(base, 'GET', `/v1/receipts/${turn2}/bundle`, USER())).body as ReceiptBundle;
  assert.equal(b2.proof.envelope.public_signature!.kid, keys1[0]!.kid);
  assert.equal(verifyBundlePublicSync(b2, { publicKeys: ring1, ed25519: nodeEd25519Verify }).ok, true);
  // Pinned to the old key only, the new bundle is refused (unknown kid), not passed.
  const oldOnly = verifyBundlePublicSync(b2, { publicKeys: ring, ed25519: nodeEd25519Verify });
  assert.equal(oldOnly.ok, false);
  assert.equal(oldOnly.checks.find((c) => c.id === 'envelope_signature')!.errors[0]!.code, 'UNKNOWN_KID');
  // The server-side Verify (HMAC pipeline) still holds on a v2 bundle.
  assert.equal((await call(base, 'POST', `/v1/receipts/${turn2}/verify`, USER(), {})).body.ok, true);
});
