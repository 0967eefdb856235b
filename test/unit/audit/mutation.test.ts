/**
 * Mutation test: flip random bytes of a good bundle (compact JSON, as served). Every flip that still
 * parses and changes a signed field must make verification fail; a flip that breaks the JSON is
 * rejected by the parser. Unsigned fields are the receipt objects' presentation fields
 * (id, tier, status, sealed, *_url); receipt.turn_id is bound to the envelope.
 * Deterministic (seeded), so a failure names a reproducible offset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeHashProvider } from '../../../services/audit/src/domain/keys.js';
import { verifyReceiptJson } from '../../../services/audit/src/verifier/index.js';
import { FIXTURE_DIR } from '../../helpers/audit.js';

const DIR = join(FIXTURE_DIR, 'golden');
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { cases: Array<{ name: string; file: string; keys: Record<string, string> }> };

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 0x100000000; };
}

function diffPaths(a: unknown, b: unknown, path: string, out: string[]): void {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || a === null || b === null || typeof a !== 'object') {
    if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) out.push(path);
    return;
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  for (const k of new Set([...ka, ...kb])) {
    diffPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, out);
  }
}

const UNSIGNED = /^\$\.(detail|proof)\.receipt\.(id|tier|status|sealed|receipt_url|proof_url|bundle_url)$/;

for (const name of ['good-rotation', 'good-v2']) {
  test(`every flip of a signed field of ${name} is caught`, () => {
    const c = manifest.cases.find((x) => x.name === name)!;
    const original = JSON.parse(readFileSync(join(DIR, c.file), 'utf8')) as unknown;
    const bytes = Buffer.from(JSON.stringify(original), 'utf8');
    const rand = rng(name.length * 7919);
    let signedFlips = 0;
    let unparsable = 0;
    let unsignedOnly = 0;
    for (let i = 0; i < 1500; i++) {
      const pos = Math.floor(rand() * bytes.length);
      const mask = 1 + Math.floor(rand() * 255);
      const mutated = Buffer.from(bytes);
      mutated[pos] = mutated[pos]! ^ mask;
      let parsed: unknown;
      try { parsed = JSON.parse(mutated.toString('utf8')); } catch { unparsable++; continue; }
      const paths: string[] = [];
      diffPaths(original, parsed, '$', paths);
      if (paths.length === 0) continue;
      const signed = paths.filter((p) => !UNSIGNED.test(p));
      if (signed.length === 0) { unsignedOnly++; continue; }
      signedFlips++;
      const r = verifyReceiptJson({ bundle: parsed }, { keys: c.keys, hash: nodeHashProvider });
      assert.equal(r.ok, false, `flip at byte ${pos} (xor ${mask}) changed ${signed.join(', ')} and still verified`);
    }
    process.stdout.write(`${name}: ${signedFlips} signed flips caught, ${unparsable} unparsable, ${unsignedOnly} unsigned-only\n`);
    assert.ok(signedFlips > 300, `only ${signedFlips} flips hit signed fields (${unparsable} unparsable, ${unsignedOnly} unsigned)`);
  });
}
