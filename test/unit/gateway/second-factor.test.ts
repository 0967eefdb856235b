/**
 * The gateway's half of the second factor (services/gateway/src/domain/second-factor.ts; issue 14
 * item 3): a verified password without a second factor passes the bundle as it is; with one, the
 * bundle is parked and the answer carries no token; the release happens once; the 2fa body is
 * shape-checked. Auth is a scripted `SecondFactorAuthority`, parking the in-process store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '../../../services/shared/kit/domain-error.js';
import { PARKING_GRACE_MS, SecondFactorGate, parseLogin2faBody, subjectOf } from '../../../services/gateway/src/domain/second-factor.js';
import type { SecondFactorAuthority } from '../../../services/gateway/src/domain/ports.js';
import type { LoginChallengeCreate, LoginChallengeVerdict } from '../../../services/auth/src/contracts.js';
import { MemoryChallengeParking } from '../../../services/gateway/src/store/challenge-parking.js';

const CHALLENGE = '01J0000000000000000000000A';
const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (claims: Record<string, unknown>): string => `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64(claims)}.c2ln`;
const bundle = (sub = 'user-1'): string => JSON.stringify({ access_token: jwt({ sub, aud: 'svc-frontend' }), refresh_token: 'r-secret', token_type: 'Bearer', expires_in: 900 });

function world(opts: { required?: boolean; verdicts?: Array<LoginChallengeVerdict | DomainError> } = {}) {
  let now = Date.UTC(2030, 0, 1);
  const created: LoginChallengeCreate[] = [];
  const verdicts = [...(opts.verdicts ?? [])];
  const authority: SecondFactorAuthority = {
    required: async () => ({ required: opts.required ?? true, enrolled: true, enforced: false, methods: ['push', 'totp'] }),
    create: async (input) => {
      created.push(input);
      return { challenge_id: CHALLENGE, methods: ['push', 'totp'], number_match: 42, expires_at: new Date(now + 120_000).toISOString() };
    },
    verify: async () => {
      const v = verdicts.shift();
      if (v === undefined) throw new Error('no verdict scripted');
      if (v instanceof DomainError) throw v;
      return v;
    },
  };
  const parking = new MemoryChallengeParking(() => now);
  const gate = new SecondFactorGate({ authority, parking, clock: () => now });
  return { gate, parking, created, advance: (ms: number) => { now += ms; } };
}

test('no second factor required: the bundle passes as auth sent it, nothing parked', async () => {
  const w = world({ required: false });
  assert.deepEqual(await w.gate.afterPassword(bundle(), { ip: '10.0.0.9', userAgent: 'ua' }), { kind: 'tokens' });
  assert.equal(w.parking.size, 0);
  assert.equal(w.created.length, 0);
});

test('required: a challenge answer without any token, the bundle parked under its id for its lifetime plus grace', async () => {
  const w = world();
  const out = await w.gate.afterPassword(bundle(), { ip: '10.0.0.9', userAgent: 'x'.repeat(600) });
  assert.equal(out.kind, 'challenge');
  if (out.kind !== 'challenge') return;
  assert.deepEqual(Object.keys(out.answer).sort(), ['challenge_id', 'expires_at', 'methods', 'number_match']);
  assert.equal(out.answer.challenge_id, CHALLENGE);
  assert.equal(out.answer.number_match, 42);
  assert.doesNotMatch(JSON.stringify(out.answer), /access_token|refresh_token|r-secret/);
  assert.equal(w.created[0]!.user_id, 'user-1');
  assert.equal(w.created[0]!.client_ip, '10.0.0.9');
  assert.equal(w.created[0]!.user_agent.length, 512, 'a long user agent is cut to what auth accepts');
  assert.equal(w.parking.size, 1);
  w.advance(120_000 + PARKING_GRACE_MS - 1);
  assert.equal(w.parking.sweep(), 0, 'kept until the challenge expires, plus grace');
  w.advance(2);
  assert.equal(w.parking.sweep(), 1);
});

test('release: pending, then approved once; a second approval finds nothing (challenge_expired)', async () => {
  const w = world({ verdicts: [{ status: 'pending' }, { status: 'approved', user_id: 'user-1' }, { status: 'approved', user_id: 'user-1' }] });
  const b = bundle();
  await w.gate.afterPassword(b, { ip: '::1', userAgent: '' });
  assert.deepEqual(await w.gate.complete({ challenge_id: CHALLENGE }), { kind: 'pending' });
  assert.deepEqual(await w.gate.complete({ challenge_id: CHALLENGE, code: '123456' }), { kind: 'tokens', bundle: b });
  await assert.rejects(w.gate.complete({ challenge_id: CHALLENGE }), (e: DomainError) => e.code === 'challenge_expired');
});

test('approved for another user than the parked login: nothing is released', async () => {
  const w = world({ verdicts: [{ status: 'approved', user_id: 'user-2' }] });
  await w.gate.afterPassword(bundle('user-1'), { ip: '::1', userAgent: '' });
  await assert.rejects(w.gate.complete({ challenge_id: CHALLENGE }), (e: DomainError) => e.code === 'challenge_expired');
});

test("auth's refusals pass through as they are (denied, used, expired, wrong code)", async () => {
  for (const code of ['challenge_denied', 'challenge_used', 'challenge_expired', 'code_invalid']) {
    const w = world({ verdicts: [new DomainError(code, code)] });
    await assert.rejects(w.gate.complete({ challenge_id: CHALLENGE }), (e: DomainError) => e.code === code, code);
  }
});

test('an expired parked login is not released even if the sweep has not run', async () => {
  const w = world({ verdicts: [{ status: 'approved', user_id: 'user-1' }] });
  await w.gate.afterPassword(bundle(), { ip: '::1', userAgent: '' });
  w.advance(120_000 + PARKING_GRACE_MS + 1);
  await assert.rejects(w.gate.complete({ challenge_id: CHALLENGE }), (e: DomainError) => e.code === 'challenge_expired');
});

test('subjectOf: the sub of the access token; no token at all is null; an unreadable one fails closed', () => {
  assert.equal(subjectOf(bundle('abc')), 'abc');
  assert.equal(subjectOf('{"ok":true}'), null);
  for (const bad of ['not json', '{"access_token":5}', '{"access_token":"a.b.c"}', JSON.stringify({ access_token: jwt({ aud: 'x' }) })]) {
    assert.throws(() => subjectOf(bad), (e: DomainError) => e.code === 'service_unavailable', bad);
  }
});

test('parseLogin2faBody: a ULID challenge id and an optional 1-64 character code, nothing else', () => {
  const buf = (o: unknown): Buffer => Buffer.from(typeof o === 'string' ? o : JSON.stringify(o));
  assert.deepEqual(parseLogin2faBody(buf({ challenge_id: CHALLENGE })), { challenge_id: CHALLENGE });
  assert.deepEqual(parseLogin2faBody(buf({ challenge_id: CHALLENGE, code: 'abcd-efgh-ijkl' })), { challenge_id: CHALLENGE, code: 'abcd-efgh-ijkl' });
  const field = (raw: unknown): unknown => {
    try { parseLogin2faBody(raw); } catch (e) { assert.equal((e as DomainError).code, 'invalid_request'); return (e as DomainError).extra?.field; }
    assert.fail(`accepted ${String(raw)}`);
  };
  assert.equal(field(buf({ challenge_id: 'nope' })), 'challenge_id');
  assert.equal(field(buf({ challenge_id: CHALLENGE.toLowerCase() })), 'challenge_id');
  assert.equal(field(buf({ challenge_id: `${CHALLENGE}/../x` })), 'challenge_id');
  assert.equal(field(buf({ challenge_id: CHALLENGE, code: '' })), 'code');
  assert.equal(field(buf({ challenge_id: CHALLENGE, code: 'x'.repeat(65) })), 'code');
  assert.equal(field(buf({ challenge_id: CHALLENGE, code: 123456 })), 'code');
  assert.equal(field(buf({ challenge_id: CHALLENGE, user_id: 'admin' })), 'user_id');
  assert.equal(field(buf('[1]')), undefined);
  assert.equal(field(buf('{')), undefined);
  assert.equal(field(undefined), undefined);
});
