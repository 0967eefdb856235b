/**
 * Issue 15 item 2, the broker's state and secret handling over the real SQLite store: an expired
 * state is refused (`state_invalid`) even when never used, a state of another alias is refused, and
 * the client secret is stored sealed (never in clear text in the database) and opens only for its
 * own alias. The upstream HTTP side is the one thing replaced here (the integration test
 * test/integration/upstream-sso.test.ts runs it against a real oidc-provider).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openAuthStore } from '../../../services/auth/src/store/auth-store.js';
import { AesGcmSealer } from '../../../services/auth/src/store/upstream-secret-key.js';
import { UpstreamBroker, type UpstreamOidcPort } from '../../../services/auth/src/domain/upstream-broker.js';
import { DomainError } from '../../../services/shared/kit/domain-error.js';

function setup() {
  const store = openAuthStore({ dbDir: ':memory:', migrationsDir: join(process.cwd(), 'migrations') });
  let now = Date.parse('2026-01-01T00:00:00Z');
  let redeemed = 0;
  const oidc: UpstreamOidcPort = {
    checkIssuer: async () => {},
    metadata: async (c) => ({ issuer: c.issuer, authorization_endpoint: `${c.issuer}/auth`, token_endpoint: `${c.issuer}/token` }),
    newChecks: () => ({ state: randomBytes(16).toString('base64url'), nonce: 'n', code_verifier: 'v'.repeat(43) }),
    authorizationUrl: async (c, p) => `${c.issuer}/auth?state=${p.state}`,
    redeem: async () => { redeemed++; return { iss: 'https://corp.example', sub: 's1', email: 'a@corp.example', name: 'A', groups: [] }; },
  };
  const sealer = new AesGcmSealer(randomBytes(32));
  const broker = new UpstreamBroker({
    idps: store.upstreamIdps, links: store.upstreamLinks, states: store.brokerStates, users: store.users, oidc, sealer,
    tx: store.txAsync, clock: () => now, publicUrl: 'https://ws.example', groupRoleMap: {},
  });
  return { store, broker, sealer, advance: (ms: number) => { now += ms; }, redeemed: () => redeemed };
}

const body = { alias: 'corp', issuer: 'https://corp.example', client_id: 'c', client_secret: 'very-secret-value', scopes: ['email'], claims: { email: 'email', name: 'name', groups: 'groups' } };

const code = async (p: Promise<unknown>): Promise<string> => {
  try { await p; return 'ok'; } catch (err) { assert.ok(err instanceof DomainError); return err.code; }
};

test('an expired state is refused and never reaches the upstream', async () => {
  const { broker, advance, redeemed } = setup();
  await broker.create(body);
  const url = new URL(await broker.start('corp', 'uid-1'));
  advance(10 * 60_000 + 1);
  assert.equal(await code(broker.finish('corp', new URL(`https://ws.example/cb?code=x&state=${url.searchParams.get('state')}`))), 'state_invalid');
  assert.equal(redeemed(), 0);
});

test('a state is single use and bound to its alias', async () => {
  const { broker } = setup();
  await broker.create(body);
  await broker.create({ ...body, alias: 'other' });
  const state = new URL(await broker.start('corp', 'uid-2')).searchParams.get('state')!;
  assert.equal(await code(broker.finish('other', new URL(`https://ws.example/cb?code=x&state=${state}`))), 'state_invalid');
  const state2 = new URL(await broker.start('corp', 'uid-3')).searchParams.get('state')!;
  const done = await broker.finish('corp', new URL(`https://ws.example/cb?code=x&state=${state2}`));
  assert.equal(done.interactionUid, 'uid-3');
  assert.equal(done.identity.upstream_sub, 's1');
  assert.equal(await code(broker.finish('corp', new URL(`https://ws.example/cb?code=x&state=${state2}`))), 'state_invalid');
});

test('the client secret is stored sealed and opens only for its alias', async () => {
  const { store, broker, sealer } = setup();
  const view = await broker.create(body);
  assert.ok(!JSON.stringify(view).includes(body.client_secret));
  const rec = store.upstreamIdps.get('corp')!;
  assert.ok(!rec.client_secret_enc.includes(body.client_secret));
  assert.equal(sealer.open(rec.client_secret_enc, 'corp'), body.client_secret);
  assert.throws(() => sealer.open(rec.client_secret_enc, 'other'));
});
