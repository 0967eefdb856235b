/**
 * Regression (issue 11 item 4, verifier part): an audit row whose detail nested 20,000 deep made
 * `svc-verify` crash with a stack overflow on any bundle whose suffix held it, because the
 * verifier canonicalised the signed payload recursively. The verifier now measures depth
 * iteratively first and answers a verdict (`INPUT_TOO_DEEP` / `INPUT_TOO_LARGE`), never a throw;
 * the CLI prints NOT VERIFIED and exits 1. The v1 golden bundles still verify as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeHashProvider, sha256HexFast } from '../../../services/audit/src/domain/keys.js';
import {
  chainHash, hmacHex, jsonNestingDepth, jsonValueDepth, signedPayloadText, verifyBundle, verifyReceiptJson, parseBundle, VERIFIER_LIMITS,
  type ReceiptBundle, type SuffixRow, type VerificationReport,
} from '../../../services/audit/src/verifier/index.js';
import { runCli, type CliIo } from '../../../scripts/svc-verify.js';
import { JSON_MAX_DEPTH } from '../../../services/shared/kit/json-depth.js';
import { FIXTURE_DIR } from '../../helpers/audit.js';

interface Case { name: string; file: string; keys: Record<string, string>; ok: boolean; must_fail: string[] }
const DIR = join(FIXTURE_DIR, 'golden');
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { cases: Case[] };
const good = manifest.cases.find((c) => c.name === 'good-rotation')!;
const loadGood = (): ReceiptBundle => JSON.parse(readFileSync(join(DIR, good.file), 'utf8')) as ReceiptBundle;

const DEPTH = 20_000;
const deepText = (n: number): string => '['.repeat(n) + ']'.repeat(n);

/** A good bundle whose suffix gains one correctly signed and linked row with a detail `depth` deep. */
function bundleWithDeepRow(depth = DEPTH): ReceiptBundle {
  const b = loadGood();
  const suffix = b.proof.audit_chain.suffix as SuffixRow[];
  const last = suffix[suffix.length - 1]!;
  const seq = last.seq + 1;
  const text = signedPayloadText({
    tenant_id: b.proof.envelope.payload.tenant_id, seq, timestamp: '2025-01-01T00:00:00.000Z', user_id: 'user-2', action: 'probe.deep',
    resource_type: null, resource_id: null, detail_type: null, detail: null, previous_hash: last.chain_hash, agent_id: null,
    agent_chain: null, delegated_by: null, key_version: last.key_version,
  }, deepText(depth));
  const signature = hmacHex(good.keys[last.key_version]!, text, nodeHashProvider);
  const id = last.id + 1;
  suffix.push({ id, seq, signed_payload: text, signature, previous_hash: last.chain_hash, key_version: last.key_version, chain_hash: chainHash(id, last.chain_hash, signature, nodeHashProvider) });
  return b;
}

const codes = (r: VerificationReport, id: string): string[] => r.checks.find((c) => c.id === id)!.errors.map((e) => e.code);

test('a suffix row with a detail nested 20,000 deep is a verdict, not a stack overflow', () => {
  const bundle = bundleWithDeepRow();
  let r: VerificationReport | undefined;
  assert.doesNotThrow(() => { r = verifyReceiptJson({ bundle }, { keys: good.keys, hash: nodeHashProvider }); });
  assert.equal(r!.ok, false);
  assert.deepEqual(codes(r!, 'suffix_hmac'), ['INPUT_TOO_DEEP']);
  assert.match(r!.checks.find((c) => c.id === 'suffix_hmac')!.detail, /deeper than 256 levels/);
  // Only the deep row is refused: everything else about the receipt still holds.
  for (const c of r!.checks) if (c.id !== 'suffix_hmac') assert.equal(c.ok, true, `${c.id}: ${c.detail}`);
  // The service calls verifyBundle on the bundle it builds (no parse step): the same verdict.
  const direct = verifyBundle(parseBundle(bundle), { keys: good.keys, hash: nodeHashProvider });
  assert.deepEqual(codes(direct, 'suffix_hmac'), ['INPUT_TOO_DEEP']);
  // Within the limit the same construction verifies: the refusal is about depth, not the row.
  assert.equal(verifyReceiptJson({ bundle: bundleWithDeepRow(50) }, { keys: good.keys }).ok, true);
});

test('the same row redacted in a v1.1 proof is checked by link only and the bundle verifies', () => {
  const b = bundleWithDeepRow();
  const suffix = b.proof.audit_chain.suffix as Array<Record<string, unknown>>;
  const row = suffix[suffix.length - 1]!;
  const { signed_payload: text, ...link } = row;
  suffix[suffix.length - 1] = { ...link, signed_payload_sha256: sha256HexFast(text as string) };
  (b.proof as Record<string, unknown>).format = '1.1';
  const r = verifyReceiptJson({ bundle: b }, { keys: good.keys });
  assert.equal(r.ok, true, JSON.stringify(r.checks.filter((c) => !c.ok)));
  assert.equal(r.suffix!.redacted, 1);
  assert.equal(r.suffix!.redacted_tail, 1);
});

test('input nested deeper than the limit is refused before parsing, with INPUT_TOO_DEEP', () => {
  let deep: unknown = 'x';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  for (const input of [{ bundle: deep }, { bundle: { ...loadGood(), extra: deep } }, { detail: loadGood().detail, proof: deep }]) {
    let r: VerificationReport | undefined;
    assert.doesNotThrow(() => { r = verifyReceiptJson(input, { keys: good.keys }); });
    assert.equal(r!.ok, false);
    assert.equal(r!.checks[0]!.errors[0]!.code, 'INPUT_TOO_DEEP');
    assert.equal(r!.suffix, null);
    assert.ok(r!.checks.slice(1).every((c) => !c.ok && /not run/.test(c.detail)));
  }
  // A caller may tighten the limit: the good bundle is 5 deep.
  assert.equal(verifyReceiptJson({ bundle: loadGood() }, { keys: good.keys, limits: { maxDepth: 4 } }).checks[0]!.errors[0]!.code, 'INPUT_TOO_DEEP');
});

test('depth is measured iteratively, brackets inside strings ignored; the limit covers all the service accepts', () => {
  assert.ok(VERIFIER_LIMITS.maxDepth >= JSON_MAX_DEPTH + 1, 'a row whose body passed the door (detail + 1 level) must stay verifiable');
  assert.equal(jsonNestingDepth('{"a":"[[[\\"{{"}'), 1);
  assert.equal(jsonNestingDepth('[1,[2,{"x":[]}]]'), 4);
  assert.equal(jsonNestingDepth('"just a string"'), 0);
  assert.equal(jsonNestingDepth(deepText(1_000_000), 256), 257, 'stops early past the limit');
  assert.equal(jsonValueDepth({ a: [1, { b: [] }] }), 4);
  assert.equal(jsonValueDepth(42), 0);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(jsonValueDepth(cyclic, 10), 11, 'a cycle ends at the limit');
});

function io(files: Record<string, string>, sizes: Record<string, number> = {}): CliIo & { lines: string[]; errs: string[] } {
  const lines: string[] = [];
  const errs: string[] = [];
  return {
    lines, errs,
    readFile: (p) => { if (!(p in files)) throw new Error(`no such file ${p}`); return files[p]!; },
    fileSize: (p) => sizes[p] ?? Buffer.byteLength(files[p] ?? ''),
    out: (l) => lines.push(l),
    err: (l) => errs.push(l),
  };
}
const KEYS = Object.entries(good.keys).flatMap(([v, k]) => ['--key-version', v, '--key', k]);

test('svc-verify on a bundle holding the deep row: NOT VERIFIED, exit 1, no crash', () => {
  const cli = io({ 'deep.json': JSON.stringify(bundleWithDeepRow()) });
  let code = -1;
  assert.doesNotThrow(() => { code = runCli(['--bundle', 'deep.json', ...KEYS], cli); });
  assert.equal(code, 1);
  assert.ok(cli.lines.some((l) => /^FAIL {2}suffix_hmac/.test(l)), cli.lines.join('\n'));
  assert.ok(cli.lines.some((l) => /refused: INPUT_TOO_DEEP/.test(l)), cli.lines.join('\n'));
  assert.ok(cli.lines.some((l) => /^PASS {2}anchor/.test(l)));
  assert.equal(cli.lines.at(-1), 'NOT VERIFIED: at least one check failed');

  const json = io({ 'deep.json': JSON.stringify(bundleWithDeepRow()) });
  assert.equal(runCli(['--bundle', 'deep.json', '--json', ...KEYS], json), 1);
  const report = JSON.parse(json.lines.join('\n')) as { ok: boolean; checks: Array<{ id: string; ok: boolean; code?: string }> };
  assert.equal(report.ok, false);
  assert.equal(report.checks.find((c) => c.id === 'suffix_hmac')!.code, 'INPUT_TOO_DEEP');
});

test('svc-verify refuses a file nested 100,000 deep or over the size limit with a verdict', () => {
  const deepFile = io({ 'deep.json': deepText(100_000) });
  assert.equal(runCli(['--bundle', 'deep.json', ...KEYS], deepFile), 1);
  assert.match(deepFile.lines.join('\n'), /FAIL {2}structure .*deeper than 256 levels/);
  assert.match(deepFile.lines.join('\n'), /refused: INPUT_TOO_DEEP/);
  assert.deepEqual(deepFile.errs, []);

  const big = io({ 'big.json': '{}' }, { 'big.json': VERIFIER_LIMITS.maxBytes + 1 });
  assert.equal(runCli(['--receipt', 'big.json', '--proof', 'big.json', '--json', ...KEYS], big), 1);
  const report = JSON.parse(big.lines.join('\n')) as { ok: boolean; checks: Array<{ id: string; code?: string }> };
  assert.equal(report.checks[0]!.code, 'INPUT_TOO_LARGE');

  // Not JSON stays an input error (exit 2), as before.
  const junk = io({ 'junk.json': '{nope' });
  assert.equal(runCli(['--bundle', 'junk.json', ...KEYS], junk), 2);
});

test('v1 golden bundles still verify exactly as before (verdicts, failing checks, coverage)', () => {
  for (const c of manifest.cases) {
    const r = verifyReceiptJson({ bundle: JSON.parse(readFileSync(join(DIR, c.file), 'utf8')) }, { keys: c.keys, hash: nodeHashProvider });
    assert.equal(r.ok, c.ok, `${c.name}: ${JSON.stringify(r.checks.filter((x) => !x.ok).map((x) => [x.id, x.detail]))}`);
    for (const id of c.must_fail) assert.equal(r.checks.find((x) => x.id === id)!.ok, false, `${c.name}: ${id} must fail`);
    assert.equal(r.suffix!.format, '1');
    assert.equal(r.suffix!.redacted, 0);
  }
  const cli = io({ 'good.json': readFileSync(join(DIR, good.file), 'utf8') });
  assert.equal(runCli(['--bundle', 'good.json', ...KEYS], cli), 0);
  assert.ok(!cli.lines.some((l) => /redacted/.test(l)), 'a v1 report reads as before');
});
