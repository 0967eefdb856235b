/**
 * The signed-note and checkpoint format of receipt format v2 (issue 22 item 3; c2sp.org/signed-note,
 * c2sp.org/tlog-checkpoint): the Go sumdb/note example vector (key hash, verifier key, parse,
 * Ed25519 over the text), checkpoint round trips and refusals, base64 canonical forms, the
 * envelope signing text (fast form equals JCS), and pinned JWK parsing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import {
  base64Decode, base64Encode, base64UrlEncode, envelopeSigningText, formatCheckpointText, formatNote, noteKeyHash, noteVerifierKey, NoteError,
  parseCheckpointText, parseNote, parsePublicKeys, pureHashProvider, jwkThumbprint,
} from '../../../services/audit/src/verifier/index.js';
import { envelopeSigningTextOf } from '../../../services/audit/src/domain/receipt-signing.js';
import { checkpointOrigin } from '../../../services/audit/src/domain/checkpoints.js';
import { receiptKid } from '../../../services/audit/src/store/receipt-keys.js';

const GO_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const GO_TEXT = 'If you think cryptography is the answer to your problem,\nthen you don\'t know what your problem is.\n';
const GO_NOTE = `${GO_TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;
const edVerify = (raw: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean =>
  verify(null, msg, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' }), sig);

test('the Go sumdb/note example: key hash, verifier key, parse and Ed25519 over the text', () => {
  const raw = base64Decode(GO_VKEY.split('+')[2]!).slice(1);
  assert.equal(raw.length, 32);
  assert.equal(noteKeyHash('PeterNeumann', raw, pureHashProvider), 0xc74f20a3);
  assert.equal(noteVerifierKey('PeterNeumann', raw, pureHashProvider), GO_VKEY);
  const n = parseNote(GO_NOTE);
  assert.equal(n.text, GO_TEXT);
  assert.equal(n.sigs.length, 1);
  assert.equal(n.sigs[0]!.name, 'PeterNeumann');
  assert.equal(n.sigs[0]!.keyHash, 0xc74f20a3);
  assert.ok(edVerify(raw, new TextEncoder().encode(n.text), n.sigs[0]!.sig));
  assert.equal(edVerify(raw, new TextEncoder().encode(n.text.replace('cryptography', 'cryptographY')), n.sigs[0]!.sig), false);
  // formatNote reproduces the note byte for byte.
  assert.equal(formatNote(n.text, n.sigs), GO_NOTE);
});

test('a checkpoint signs, formats, parses and verifies; its fields are strict', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
  const raw = new Uint8Array(Buffer.from(x, 'base64url'));
  const origin = checkpointOrigin('My Workstation+1', 'acme');
  assert.equal(origin, 'my-workstation-1/svc-receipts/acme');
  const hash = new Uint8Array(32).fill(7);
  const text = formatCheckpointText({ origin, size: 42, hash, extensions: ['timestamp 2026-11-24T07:00:00.000Z'] });
  assert.equal(text, `${origin}\n42\n${base64Encode(hash)}\ntimestamp 2026-11-24T07:00:00.000Z\n`);
  const note = formatNote(text, [{ name: origin, keyHash: noteKeyHash(origin, raw, pureHashProvider), sig: new Uint8Array(sign(null, Buffer.from(text), privateKey)) }]);
  const n = parseNote(note);
  const cp = parseCheckpointText(n.text);
  assert.deepEqual({ origin: cp.origin, size: cp.size, ext: cp.extensions }, { origin, size: 42, ext: ['timestamp 2026-11-24T07:00:00.000Z'] });
  assert.deepEqual([...cp.hash], [...hash]);
  assert.ok(edVerify(raw, new TextEncoder().encode(n.text), n.sigs[0]!.sig));

  const bad = [
    `${origin}\n042\n${base64Encode(hash)}\n`, // leading zero
    `${origin}\n-1\n${base64Encode(hash)}\n`,
    `${origin}\n1\n${base64Encode(new Uint8Array(31))}\n`, // short hash
    `${origin}\n1\n`, // two lines
    `${origin}\n1\n${base64Encode(hash)}`, // no final newline
    `${origin}\n1\n${base64Encode(hash)}\n\nextra\n`, // blank line
    `${origin}\n1\n${base64Encode(hash)}\nbad\u0001ext\n`, // control character
  ];
  for (const b of bad) assert.throws(() => parseCheckpointText(b), NoteError, JSON.stringify(b));
  for (const b of ['no blank line\n', `${text}\n`, `${text}\n- name AAAA\n`, `${text}\n\u2014 na me AAAAAAA=\n`, `${text}\n\u2014 a+b AAAAAAA=\n`, `${text}\n\u2014 name AAAA\n`]) {
    assert.throws(() => parseNote(b), NoteError, JSON.stringify(b));
  }
  assert.throws(() => formatNote(text, []), NoteError);
});

test('base64 forms are canonical; the envelope signing text is JCS({payload, audit_log_id, audit_seq})', () => {
  const b = new Uint8Array([0xfb, 0xff, 0x00, 0x10]);
  assert.equal(base64Encode(b), Buffer.from(b).toString('base64'));
  assert.equal(base64UrlEncode(b), Buffer.from(b).toString('base64url'));
  assert.deepEqual([...base64Decode(Buffer.from(b).toString('base64url'), true)], [...b]);
  assert.throws(() => base64Decode('+/8AEA==', true), NoteError, 'standard alphabet is not base64url');
  assert.throws(() => base64Decode('AB=='), NoteError, 'non-canonical trailing bits');
  assert.throws(() => base64Decode('AAA'), NoteError);

  const payload = {
    canonicalization_version: 'rfc8785-v1' as const, detail_type: 'turn_envelope_v1' as const, event_count: 1, event_ids: ['e\u00e9"1'],
    leaf_hashes: ['a'.repeat(64)], merkle_root: 'a'.repeat(64), seal_reason: 'manual' as const, status: 'completed' as const, tenant_id: 't', turn_id: 'u',
  };
  const generic = envelopeSigningText({ payload, audit_log_id: 12, audit_seq: 11 });
  assert.equal(envelopeSigningTextOf({ payload: JSON.stringify(payload), audit_log_id: 12, audit_seq: 11 }), generic);
  assert.ok(generic.startsWith('{"audit_log_id":12,"audit_seq":11,"payload":{'));
});

test('pinned keys: a JWK, a list or a key set; kid must be the thumbprint; private or foreign keys refused', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
  const kid = jwkThumbprint(jwk.x);
  assert.equal(kid, receiptKid(jwk.x), 'the pure thumbprint equals the key store\'s node:crypto one');
  assert.deepEqual([...parsePublicKeys(jwk).keys()], [kid]);
  assert.deepEqual([...parsePublicKeys({ keys: [{ ...jwk, kid, created_at: 'x' }] }).keys()], [kid]);
  assert.throws(() => parsePublicKeys({ ...jwk, kid: 'not-it' }), /thumbprint/);
  assert.throws(() => parsePublicKeys(privateKey.export({ format: 'jwk' })), /private/);
  assert.throws(() => parsePublicKeys({ ...jwk, crv: 'X25519' }), /Ed25519/);
  assert.throws(() => parsePublicKeys({ keys: [] }), /no public key/);
});
