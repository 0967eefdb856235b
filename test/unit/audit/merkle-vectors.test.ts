/**
 * RFC 6962 / 9162 Merkle vectors (transparency-dev/merkle testdata, read in place from
 * ../shared/assets/vectors/merkle): inclusion, consistency and subtree inclusion proofs, happy paths
 * and every mutation; plus the tree hash over the RFC 6962 test leaves against the vectors' roots.
 * Sizes up to 2^64-1 are parsed exactly (bigint), not through JSON numbers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import {
  hashLeafData, merkleTreeHash, merkleTreeHashRecursive, verifyConsistency, verifyInclusion, verifySubtreeInclusion, MerkleProofError,
} from '../../../services/audit/src/verifier/merkle.js';
import { SHARED_ASSETS } from '../../helpers/audit.js';

const DIR = join(SHARED_ASSETS, 'vectors/merkle');
const BIG_KEYS = /"(size1|size2|treeSize|leafIdx|start|end)"\s*:\s*(\d+)/g;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) out.push(...files(p)); else if (f.endsWith('.json')) out.push(p);
  }
  return out;
}

function load(path: string): Record<string, unknown> {
  // Quote the integer fields first so 64-bit sizes survive JSON.parse exactly.
  return JSON.parse(readFileSync(path, 'utf8').replace(BIG_KEYS, '"$1": "$2"')) as Record<string, unknown>;
}

const b64 = (s: unknown): Uint8Array => Buffer.from(typeof s === 'string' ? s : '', 'base64');
const list = (v: unknown): Uint8Array[] => (Array.isArray(v) ? v.map(b64) : []);

function outcome(fn: () => void): { err: boolean; why: string } {
  try { fn(); return { err: false, why: '' }; } catch (e) {
    if (!(e instanceof MerkleProofError)) throw e;
    return { err: true, why: e.code };
  }
}

test('inclusion vectors', () => {
  const cases = files(join(DIR, 'inclusion'));
  assert.ok(cases.length > 50);
  for (const f of cases) {
    const v = load(f);
    const r = outcome(() => verifyInclusion(BigInt(v.leafIdx as string), BigInt(v.treeSize as string), b64(v.leafHash), list(v.proof), b64(v.root)));
    assert.equal(r.err, v.wantErr, `${f}: ${v.desc} (${r.why})`);
  }
});

test('consistency vectors', () => {
  const cases = files(join(DIR, 'consistency'));
  assert.ok(cases.length > 50);
  for (const f of cases) {
    const v = load(f);
    const r = outcome(() => verifyConsistency(BigInt(v.size1 as string), BigInt(v.size2 as string), list(v.proof), b64(v.root1), b64(v.root2)));
    assert.equal(r.err, v.wantErr, `${f}: ${v.desc} (${r.why})`);
  }
});

test('subtree inclusion vectors', () => {
  const cases = files(join(DIR, 'subtreeinclusion'));
  assert.ok(cases.length > 50);
  for (const f of cases) {
    const v = load(f);
    const r = outcome(() => verifySubtreeInclusion(BigInt(v.leafIdx as string), BigInt(v.start as string), BigInt(v.end as string), b64(v.leafHash), list(v.proof), b64(v.root)));
    assert.equal(r.err, v.wantErr, `${f}: ${v.desc} (${r.why})`);
  }
});

// The RFC 6962 test leaves used by the vectors.
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) => Buffer.from(h, 'hex'));

test('tree hash over the RFC 6962 leaves matches the vectors\' happy-path roots', () => {
  const leafHashes = LEAVES.map((l) => hashLeafData(l));
  let matched = 0;
  for (const f of files(join(DIR, 'inclusion'))) {
    if (!f.endsWith('happy-path.json')) continue;
    const v = load(f);
    const n = Number(v.treeSize);
    if (n > LEAVES.length) continue;
    assert.deepEqual(Buffer.from(merkleTreeHash(leafHashes.slice(0, n))), Buffer.from(b64(v.root)), f);
    matched++;
  }
  assert.ok(matched >= 3);
  assert.equal(Buffer.from(merkleTreeHash([])).toString('hex'), createHash('sha256').update('').digest('hex'));
});

test('iterative tree hash equals the recursive definition for 0..70 leaves', () => {
  const leaves = Array.from({ length: 70 }, (_, i) => createHash('sha256').update(String(i)).digest());
  for (let n = 0; n <= 70; n++) {
    assert.deepEqual(Buffer.from(merkleTreeHash(leaves.slice(0, n))), Buffer.from(merkleTreeHashRecursive(leaves.slice(0, n))), `n=${n}`);
  }
});
