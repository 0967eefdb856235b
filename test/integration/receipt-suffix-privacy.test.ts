/**
 * Regression (issue 11 item 3): a user's proof export carried, in `audit_chain.suffix`, the full
 * signed payloads of later rows written by other users (their actions, details and user ids).
 * Receipt format v1.1: in a non-admin export every suffix row after the anchor whose user is not
 * the caller is redacted to its link fields and `signed_payload_sha256`; the caller's own rows stay
 * in full; the bundle still verifies offline (the verifier and the `svc-verify` CLI function)
 * because the chain link needs only id, previous_hash and signature; tampering a redacted row's link
 * breaks it; admins (and service principals) still export complete suffixes.
 * The audit service runs on port 0 with a temp data dir and real SQLite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { start } from '../../services/audit/src/index.js';
import {
  chainHash, verifyReceiptJson, type ProofExport, type ReceiptBundle, type VerificationReport,
} from '../../services/audit/src/verifier/index.js';
import { runCli, type CliIo } from '../../scripts/svc-verify.js';
import { ADMIN, KEY_V1, SERVICE, USER, auditConfig, call, event, newId, removeDir } from '../helpers/audit.js';

const A = 'user-a';
const B = 'user-b';
const KEYS = { v1: KEY_V1 };
const B_SECRETS = ['b.private.action', 'B-private-detail', 'doc-of-b', B];

type Row = Record<string, unknown> & { id: number; seq: number; previous_hash: string; signature: string; chain_hash: string };
const rowsOf = (p: ProofExport): Row[] => p.audit_chain.suffix as unknown as Row[];
const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const failing = (r: VerificationReport): string[] => r.checks.filter((c) => !c.ok).map((c) => c.id);

async function sealTurn(base: string, owner: string): Promise<string> {
  const turn = newId();
  const evs = [event(turn, 'turn_started', {}, { principal_id: owner }), event(turn, 'model_invoked', { i: 1 }, { principal_id: owner }), event(turn, 'turn_sealed', { status: 200 }, { principal_id: owner })];
  const r = await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: evs });
  assert.equal(r.body.accepted, evs.length);
  return turn;
}

function cliIo(files: Record<string, string>): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, readFile: (p) => files[p]!, out: (l) => lines.push(l), err: (l) => lines.push(l) };
}

test('a user\'s receipt proves its turn without exposing other users\' rows', async (t) => {
  const cfg = auditConfig();
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  const base = `http://127.0.0.1:${svc.port}`;

  // A's turn seals; then B writes rows (an audit row of B's own, B's turn, a service row about B);
  // then A writes one more row, so B's rows sit between two rows of A.
  const turnA = await sealTurn(base, A);
  assert.equal((await call(base, 'POST', '/v1/audit', USER(B), { action: 'b.private.action', resource_type: 'doc', resource_id: 'doc-of-b', detail: { note: 'B-private-detail' } })).status, 201);
  const turnB = await sealTurn(base, B);
  assert.equal((await call(base, 'POST', '/v1/audit', SERVICE(), { action: 'b.private.action', user_id: B, detail: { note: 'B-private-detail' } })).status, 201);
  assert.equal((await call(base, 'POST', '/v1/audit', USER(A), { action: 'a.own.action', detail: { note: 'mine' } })).status, 201);

  // A's proof export: v1.1, B's rows redacted, A's in full.
  const proofRes = await fetch(`${base}/v1/receipts/${turnA}/proof`, { headers: USER(A) });
  assert.equal(proofRes.status, 200);
  const proofText = await proofRes.text();
  for (const secret of [...B_SECRETS, turnB]) assert.ok(!proofText.includes(secret), `A's proof export carries ${secret}`);
  const proof = JSON.parse(proofText) as ProofExport;
  assert.equal(proof.format, '2');
  const rows = rowsOf(proof);
  assert.equal(rows.length, 5, 'anchor of A, B row, anchor of B, service row about B, A row');
  const [anchor, bRow, bAnchor, svcRow, aRow] = rows as [Row, Row, Row, Row, Row];
  assert.ok(typeof anchor.signed_payload === 'string' && anchor.signed_payload.includes('turn.envelope.sealed'));
  assert.ok(typeof aRow.signed_payload === 'string' && aRow.signed_payload.includes('a.own.action'), 'the caller\'s own later row is in full');
  for (const r of [bRow, bAnchor, svcRow]) {
    assert.deepEqual(Object.keys(r).sort(), ['chain_hash', 'id', 'key_version', 'previous_hash', 'seq', 'signature', 'signed_payload_sha256']);
    assert.match(r.signed_payload_sha256 as string, /^[0-9a-f]{64}$/);
  }

  // The admin's export of the same turn has every row in full; the digests name exactly those payloads.
  const adminProof = (await call(base, 'GET', `/v1/receipts/${turnA}/proof`, ADMIN())).body as ProofExport;
  assert.equal(adminProof.format, '2');
  const full = rowsOf(adminProof);
  assert.equal(full.length, rows.length);
  assert.ok(full.every((r) => typeof r.signed_payload === 'string'), 'admins export complete suffixes');
  assert.match(full[1]!.signed_payload as string, /B-private-detail/);
  for (const i of [1, 2, 3]) {
    assert.equal(rows[i]!.signed_payload_sha256, sha256(full[i]!.signed_payload as string));
    for (const k of ['id', 'seq', 'previous_hash', 'signature', 'key_version', 'chain_hash']) assert.equal(rows[i]![k], full[i]![k]);
  }
  const direct = (await call(base, 'GET', `/v1/turns/${turnA}/proof`, SERVICE())).body as ProofExport;
  assert.ok(rowsOf(direct).every((r) => typeof r.signed_payload === 'string'), 'service principals export complete suffixes');

  // A's bundle: same redaction, verifies offline with the verifier and with the CLI function.
  const bundleRes = await fetch(`${base}/v1/receipts/${turnA}/bundle`, { headers: USER(A) });
  const bundleText = await bundleRes.text();
  for (const secret of [...B_SECRETS, turnB]) assert.ok(!bundleText.includes(secret), `A's bundle carries ${secret}`);
  const bundle = JSON.parse(bundleText) as ReceiptBundle;
  assert.deepEqual(bundle.proof, proof);
  const report = verifyReceiptJson({ bundle }, { keys: KEYS });
  assert.equal(report.ok, true, JSON.stringify(failing(report)));
  assert.deepEqual(report.suffix, { format: '2', rows: 5, full: 2, redacted: 3, redacted_tail: 0 });
  assert.match(report.checks.find((c) => c.id === 'suffix_hmac')!.detail, /2 rows verify .*3 redacted rows .*link only/);

  const cli = cliIo({ 'a.bundle.json': bundleText });
  assert.equal(runCli(['--bundle', 'a.bundle.json', '--key-version', 'v1', '--key', KEY_V1], cli), 0, cli.lines.join('\n'));
  assert.match(cli.lines.join('\n'), /5 rows, 2 checked in full \(HMAC and links\), 3 redacted rows of other principals checked by link only/);
  assert.equal(cli.lines.at(-1), 'VERIFIED: every check holds (against this proof, this suffix and the supplied keys)');
  const split = cliIo({ 'd.json': JSON.stringify(bundle.detail), 'p.json': proofText });
  assert.equal(runCli(['--receipt', 'd.json', '--proof', 'p.json', '--key-version', 'v1', '--key', KEY_V1], split), 0, split.lines.join('\n'));
  // The admin's full bundle verifies every HMAC.
  const adminReport = verifyReceiptJson({ bundle: (await call(base, 'GET', `/v1/receipts/${turnA}/bundle`, ADMIN())).body }, { keys: KEYS });
  assert.equal(adminReport.ok, true);
  assert.deepEqual(adminReport.suffix, { format: '2', rows: 5, full: 5, redacted: 0, redacted_tail: 0 });

  // Server-side verify checks what A would export and says so.
  const v = await call(base, 'POST', `/v1/receipts/${turnA}/verify`, USER(A), {});
  assert.equal(v.status, 200);
  assert.equal(v.body.ok, true);
  assert.deepEqual(v.body.suffix, { format: '2', rows: 5, full: 2, redacted: 3, redacted_tail: 0 });
  assert.ok(!JSON.stringify(v.body).includes(B));
  // B sees B's own rows in full and A's later row redacted; B still cannot read A's receipt.
  const proofB = (await call(base, 'GET', `/v1/receipts/${turnB}/proof`, USER(B))).body as ProofExport;
  const rowsB = rowsOf(proofB);
  assert.equal(typeof rowsB[1]!.signed_payload, 'string', 'the service row about B is B\'s');
  assert.equal(rowsB[2]!.signed_payload, undefined, 'A\'s row is redacted for B');
  assert.ok(!JSON.stringify(proofB).includes('a.own.action'));
  assert.equal((await call(base, 'GET', `/v1/receipts/${turnA}/proof`, USER(B))).status, 404);
});

test('tampering a redacted row\'s link, or un-redacting it with a forged payload, breaks verification', async (t) => {
  const cfg = auditConfig();
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  const base = `http://127.0.0.1:${svc.port}`;
  const turnA = await sealTurn(base, A);
  await call(base, 'POST', '/v1/audit', USER(B), { action: 'b.private.action', detail: { note: 'B-private-detail' } });
  await call(base, 'POST', '/v1/audit', USER(B), { action: 'b.private.action', detail: { n: 2 } });
  await call(base, 'POST', '/v1/audit', USER(A), { action: 'a.own.action' });
  await call(base, 'POST', '/v1/audit', USER(B), { action: 'b.private.action', detail: { n: 3 } });
  const bundle = (await call(base, 'GET', `/v1/receipts/${turnA}/bundle`, USER(A))).body as ReceiptBundle;
  const good = verifyReceiptJson({ bundle }, { keys: KEYS });
  assert.equal(good.ok, true, JSON.stringify(failing(good)));
  assert.deepEqual(good.suffix, { format: '2', rows: 5, full: 2, redacted: 3, redacted_tail: 1 });
  assert.match(good.checks.find((c) => c.id === 'suffix_continuity')!.detail, /the last 1 follow the last full row/);

  const tamper = (f: (rows: Row[], b: ReceiptBundle) => void): VerificationReport => {
    const b = clone(bundle);
    f(rowsOf(b.proof), b);
    return verifyReceiptJson({ bundle: b }, { keys: KEYS });
  };
  // A changed signature of a redacted row: its chain_hash no longer recomputes.
  let r = tamper((rows) => { rows[1]!.signature = 'a'.repeat(64); });
  assert.equal(r.ok, false);
  assert.deepEqual(failing(r), ['suffix_continuity']);
  // Changed consistently (chain_hash recomputed): the next row's link breaks.
  r = tamper((rows) => { rows[1]!.signature = 'a'.repeat(64); rows[1]!.chain_hash = chainHash(rows[1]!.id, rows[1]!.previous_hash, rows[1]!.signature); });
  assert.deepEqual(failing(r), ['suffix_continuity']);
  assert.match(r.checks.find((c) => c.id === 'suffix_continuity')!.detail, /does not link/);
  // Every link of the redacted rows rewritten: A's later full row pins the real one in its signed payload.
  r = tamper((rows) => {
    let prev = rows[0]!;
    for (const i of [1, 2]) {
      const row = rows[i]!;
      row.signature = String(i).repeat(64);
      row.previous_hash = prev.chain_hash;
      row.chain_hash = chainHash(row.id, row.previous_hash, row.signature);
      prev = row;
    }
    rows[3]!.previous_hash = prev.chain_hash;
    rows[3]!.chain_hash = chainHash(rows[3]!.id, rows[3]!.previous_hash, rows[3]!.signature);
    rows[4]!.previous_hash = rows[3]!.chain_hash;
    rows[4]!.chain_hash = chainHash(rows[4]!.id, rows[4]!.previous_hash, rows[4]!.signature);
  });
  assert.deepEqual(failing(r), ['suffix_hmac']);
  // A redacted row dropped: seq gap and broken link.
  r = tamper((rows) => { rows.splice(2, 1); });
  assert.deepEqual(failing(r), ['suffix_continuity']);
  // A redacted row given a forged payload: its HMAC fails.
  r = tamper((rows) => {
    const row = rows[1]!;
    delete row.signed_payload_sha256;
    row.signed_payload = rowsOf(bundle.proof)[3]!.signed_payload;
  });
  assert.ok(failing(r).includes('suffix_hmac'));
  // The anchor redacted: the anchor check fails.
  r = tamper((rows) => {
    const row = rows[0]!;
    row.signed_payload_sha256 = sha256(row.signed_payload as string);
    delete row.signed_payload;
  });
  assert.ok(failing(r).includes('anchor'));
  // Without `format: "1.1"` a redacted row is not a v1 row: refused as malformed.
  r = tamper((_rows, b) => { delete (b.proof as { format?: string }).format; });
  assert.equal(r.ok, false);
  assert.equal(r.checks[0]!.errors[0]!.code, 'MALFORMED');
  assert.match(r.checks[0]!.detail, /format 1\.1/);
  // An unknown format is refused.
  r = tamper((_rows, b) => { (b.proof as { format?: string }).format = '2.0'; });
  assert.equal(r.checks[0]!.errors[0]!.code, 'MALFORMED');
});
