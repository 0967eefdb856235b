/**
 * The verifier's fixed pipeline (services/audit/src/verifier/verify.ts): one function per check,
 * in the order of `CHECK_IDS`; each check, called alone, judges only its own concern.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECK_IDS } from '../../../services/audit/src/contracts.js';
import {
  PIPELINE, CHECK_TITLES, checkAnchor, checkBinding, checkEnvelopeHmac, checkLeaves, checkMerkleRoot, checkStructure, checkSuffixContinuity,
  checkSuffixHmac, parseBundle, pureHashProvider, verifyBundle, type CheckInput,
} from '../../../services/audit/src/verifier/index.js';
import { FIXTURE_DIR } from '../../helpers/audit.js';

interface Case { name: string; file: string; keys: Record<string, string> }
const DIR = join(FIXTURE_DIR, 'golden');
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { cases: Case[] };
const good = manifest.cases.find((c) => c.name === 'good-rotation')!;
const input = (mutate?: (b: ReturnType<typeof parseBundle>) => void): CheckInput => {
  const bundle = parseBundle(JSON.parse(readFileSync(join(DIR, good.file), 'utf8')));
  mutate?.(bundle);
  return { bundle, keys: new Map(Object.entries(good.keys)), hash: pureHashProvider };
};

test('the pipeline runs the eight checks in the contract order, each with its title', () => {
  assert.deepEqual(PIPELINE.map((s) => s.id), [...CHECK_IDS]);
  const r = verifyBundle(input().bundle, { keys: good.keys });
  assert.deepEqual(r.checks.map((c) => c.id), [...CHECK_IDS]);
  for (const c of r.checks) assert.equal(c.title, CHECK_TITLES[c.id]);
  assert.ok(r.ok);
});

test('every check holds alone on a good bundle', () => {
  for (const check of [checkStructure, checkBinding, checkLeaves, checkMerkleRoot, checkEnvelopeHmac, checkAnchor, checkSuffixHmac, checkSuffixContinuity]) {
    const r = check(input());
    assert.equal(r.ok, true, `${r.id}: ${r.detail}`);
    assert.deepEqual(r.errors, []);
  }
});

test('a wrong merkle root fails merkle_root (and the signature over it), not the leaves', () => {
  const i = input((b) => { b.proof.envelope.payload.merkle_root = '0'.repeat(64); });
  assert.equal(checkMerkleRoot(i).ok, false);
  assert.equal(checkMerkleRoot(i).errors[0]!.code, 'MERKLE_ROOT_ERROR');
  assert.equal(checkLeaves(i).ok, true);
  assert.equal(checkEnvelopeHmac(i).ok, false);
});

test('an unknown key version is UNKNOWN_KEY_VERSION in envelope_hmac and suffix_hmac only', () => {
  const i = { ...input(), keys: new Map<string, string>() };
  assert.equal(checkEnvelopeHmac(i).errors[0]!.code, 'UNKNOWN_KEY_VERSION');
  assert.equal(checkSuffixHmac(i).errors[0]!.code, 'UNKNOWN_KEY_VERSION');
  assert.equal(checkSuffixContinuity(i).ok, true);
  assert.equal(checkAnchor(i).ok, true);
});

test('a broken suffix link fails continuity with the row named', () => {
  const i = input((b) => {
    const s = b.proof.audit_chain.suffix;
    if (s.length < 2) s.push({ ...s[0]!, id: s[0]!.id + 1, seq: s[0]!.seq + 1 });
    s[1]!.previous_hash = 'f'.repeat(64);
  });
  const r = checkSuffixContinuity(i);
  assert.equal(r.ok, false);
  assert.equal(r.errors[0]!.code, 'CHAIN_CONTINUITY_ERROR');
  assert.match(r.detail, /row seq \d+/);
});

test('a turn mismatch between receipt and envelope fails binding only among the envelope checks', () => {
  const i = input((b) => { b.detail.receipt.turn_id = 'other-turn'; });
  assert.equal(checkBinding(i).ok, false);
  assert.equal(checkBinding(i).errors[0]!.code, 'BINDING_ERROR');
  assert.equal(checkLeaves(i).ok, true);
  assert.equal(checkMerkleRoot(i).ok, true);
});
