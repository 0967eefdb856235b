/**
 * Issue 15 item 2, upstream SSO brokering, from outside through the gateway, against a second,
 * independent oidc-provider standing in as the company's IdP (test/helpers/company-idp.ts):
 * - admin CRUD of `/v1/admin/sso/idps`: 201 with the redirect URI to register and never the secret,
 *   409 on a duplicate alias, 400 on a bad issuer or one that reaches the workstation's own port,
 *   403 for a non-admin, test connection ok / failing, `GET /v1/auth/idps` sanitised;
 * - the full brokered sign-in: authorization code + PKCE at the embedded IdP, broker login from the
 *   interaction, sign-in at the company IdP, callback, the interaction finishes, code -> token, and
 *   the gateway's principal says `upstream_oidc` with `upstream_iss`/`upstream_sub`; a second sign-in
 *   reuses the linked account; group roles map through SVC_GROUP_ROLE_MAP;
 * - a forged, replayed or expired state is refused (`state_invalid`); an email of an existing local
 *   account is not linked (`upstream_account_conflict`).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { startCompanyIdp, type CompanyIdp, type CompanyUser } from '../helpers/company-idp.js';
import { CookieBrowser } from '../helpers/cookie-browser.js';
import { SimDevice } from '../helpers/second-factor.js';

const ALICE: CompanyUser = { sub: 'c-alice-01', password: 'alice-company-pw', email: 'Alice@Corp.example', name: 'Alice Corp', preferred_username: 'alice', groups: ['Platform Admins', 'Staff'] };
const BOB: CompanyUser = { sub: 'c-bob-02', password: 'bob-company-pw', email: 'bob@corp.example', name: 'Bob Corp', preferred_username: 'bob', groups: ['Staff'] };
/** Shares its email with the stack's bootstrap admin (a local password account). */
const MALLORY: CompanyUser = { sub: 'c-mallory-03', password: 'mallory-pw', email: ADMIN.email, name: 'Mallory', preferred_username: 'mallory', groups: [] };

let stack: TestStack;
let company: CompanyIdp;
let adminToken: string;
const claims = { email: 'email', name: 'name', groups: 'groups' };

before(async () => {
  stack = await startStack({ SVC_GROUP_ROLE_MAP: 'Platform Admins:admin' });
  company = await startCompanyIdp({ redirectUris: [`${stack.url}/idp/realms/svc/broker/corp/callback`], users: [ALICE, BOB, MALLORY] });
  adminToken = await login(stack.url, ADMIN.email, ADMIN.password);
});
after(async () => { await company?.stop(); await stack?.stop(); });

const admin = (method: string, path: string, body?: unknown) => callJson(stack.url, adminToken, method, path, body);

test('admin CRUD: secret never returned, duplicate 409, bad issuer 400, non-admin 403, test connection', async () => {
  const body = { alias: 'corp', issuer: company.issuer, client_id: company.clientId, client_secret: company.clientSecret, scopes: ['email', 'profile', 'groups'], claims, display_name: 'Corp SSO' };
  const created = await admin('POST', '/v1/admin/sso/idps', body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.redirect_uri, `${stack.url}/idp/realms/svc/broker/corp/callback`);
  assert.deepEqual(created.body.scopes, ['openid', 'email', 'profile', 'groups']);
  assert.equal(created.body.client_secret, undefined);
  assert.ok(!JSON.stringify(created.body).includes(company.clientSecret), 'the secret is never answered');

  assert.equal((await admin('POST', '/v1/admin/sso/idps', body)).body.code, 'idp_exists');
  assert.equal((await admin('POST', '/v1/admin/sso/idps', body)).status, 409);
  const bad = await admin('POST', '/v1/admin/sso/idps', { ...body, alias: 'bad', issuer: 'not a url' });
  assert.equal(bad.status, 400); assert.equal(bad.body.code, 'issuer_invalid');
  const plain = await admin('POST', '/v1/admin/sso/idps', { ...body, alias: 'plain', issuer: 'http://idp.example.com' });
  assert.equal(plain.status, 400); assert.equal(plain.body.code, 'issuer_invalid', 'http only on loopback');
  const own = await admin('POST', '/v1/admin/sso/idps', { ...body, alias: 'own', issuer: `${stack.url}/idp/realms/svc` });
  assert.equal(own.status, 400); assert.equal(own.body.code, 'url_not_allowed', 'the workstation itself is refused');
  const meta = await admin('POST', '/v1/admin/sso/idps', { ...body, alias: 'meta', issuer: 'https://169.254.169.254/latest' });
  assert.equal(meta.status, 400); assert.equal(meta.body.code, 'url_not_allowed');
  assert.equal((await admin('POST', '/v1/admin/sso/idps', { ...body, alias: 'x', extra: 1 })).status, 400, 'the body is exact');

  const list = await admin('GET', '/v1/admin/sso/idps');
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.items.map((i: { alias: string }) => i.alias), ['corp']);
  assert.ok(!JSON.stringify(list.body).includes(company.clientSecret));
  assert.equal((await admin('GET', '/v1/admin/sso/idps/corp')).body.display_name, 'Corp SSO');
  assert.equal((await admin('GET', '/v1/admin/sso/idps/nope')).status, 404);

  const ok = await admin('POST', '/v1/admin/sso/idps/corp/test');
  assert.equal(ok.status, 200); assert.equal(ok.body.ok, true); assert.equal(ok.body.issuer, company.issuer);
  assert.equal(ok.body.authorization_endpoint, `${company.issuer}/auth`);

  // A second IdP whose issuer answers nothing: the test says so clearly; then it is removed.
  const dead = await admin('POST', '/v1/admin/sso/idps', { ...body, alias: 'dead', issuer: 'http://127.0.0.1:9/realm' });
  assert.equal(dead.status, 201);
  const failing = await admin('POST', '/v1/admin/sso/idps/dead/test');
  assert.equal(failing.status, 200); assert.equal(failing.body.ok, false); assert.equal(failing.body.code, 'upstream_unavailable');
  assert.match(failing.body.error, /discovery/);
  const put = await admin('PUT', '/v1/admin/sso/idps/dead', { issuer: 'http://127.0.0.1:9/realm', client_id: 'x', scopes: [], claims, enabled: false });
  assert.equal(put.status, 200); assert.equal(put.body.enabled, false);

  const pub = await fetch(`${stack.url}/v1/auth/idps`);
  assert.equal(pub.status, 200);
  const text = await pub.text();
  assert.ok(!text.includes(company.clientSecret) && !text.includes('client_secret'), 'sanitised');
  assert.deepEqual(JSON.parse(text).idps, [{ alias: 'corp', display_name: 'Corp SSO', issuer: company.issuer, login_path: '/idp/realms/svc/broker/corp/login' }], 'disabled IdPs are not offered');
  assert.equal((await admin('DELETE', '/v1/admin/sso/idps/dead')).status, 204);
  assert.equal((await admin('DELETE', '/v1/admin/sso/idps/dead')).status, 404);

  // A non-admin is refused (gateway admin guard; auth checks again).
  assert.equal((await admin('POST', '/v1/admin/users', { email: 'plain@example.test', display_name: 'Plain', password: 'plain-password-1', roles: ['user'] })).status, 201);
  const userToken = await login(stack.url, 'plain@example.test', 'plain-password-1');
  const refused = await callJson(stack.url, userToken, 'GET', '/v1/admin/sso/idps');
  assert.equal(refused.status, 403); assert.equal(refused.body.code, 'admin_required');
  assert.equal((await callJson(stack.url, userToken, 'POST', '/v1/admin/sso/idps', { ...body, alias: 'evil' })).status, 403);
});

/** Start an authorization code + PKCE request of svc-frontend; @returns the interaction uid and the PKCE verifier. */
async function beginAuthorization(b: CookieBrowser): Promise<{ uid: string; verifier: string; state: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const q = new URLSearchParams({
    client_id: 'svc-frontend', response_type: 'code', redirect_uri: `${stack.url}/login/callback`, scope: 'openid email profile',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state,
  });
  const hop = await b.go(`${stack.url}/idp/realms/svc/protocol/openid-connect/auth?${q}`, (next) => next.includes('/interaction/'));
  assert.ok(hop.location, `redirected to the interaction (${hop.status} ${hop.body.slice(0, 200)})`);
  const uid = /\/interaction\/([\w-]+)/.exec(hop.location)![1]!;
  // The sign-in page offers every enabled upstream IdP as a button bound to this interaction.
  const page = await b.request(hop.location);
  assert.match(page.body, /action="\/idp\/realms\/svc\/broker\/corp\/login"/);
  assert.ok(page.body.includes(`value="${uid}"`));
  return { uid, verifier, state };
}

/** Walk a brokered sign-in as `user`; @returns the tokens of svc-frontend. */
async function brokeredSignIn(user: CompanyUser, b = new CookieBrowser()): Promise<{ access_token: string; status: number; body: string; code: string | null }> {
  const { uid, verifier, state } = await beginAuthorization(b);
  const atCompany = await b.go(`${stack.url}/idp/realms/svc/broker/corp/login?interaction=${uid}`, (next) => next.startsWith(`${company.issuer}/interaction/`));
  assert.ok(atCompany.location?.startsWith(`${company.issuer}/interaction/`), `sent to the company's login page (${atCompany.status} ${atCompany.body.slice(0, 300)})`);
  const upstreamAuth = b.visited.find((u) => u.startsWith(`${company.issuer}/auth`))!;
  const ua = new URL(upstreamAuth);
  assert.equal(ua.searchParams.get('code_challenge_method'), 'S256', 'the broker uses PKCE upstream');
  assert.ok(ua.searchParams.get('nonce') && ua.searchParams.get('state'));
  assert.equal(ua.searchParams.get('redirect_uri'), `${stack.url}/idp/realms/svc/broker/corp/callback`);
  const page = await b.request(atCompany.location!);
  assert.match(page.body, /Company sign-in/);
  const formAction = new URL(/action="([^"]+)"/.exec(page.body)![1]!, company.issuer).href;
  const done = await b.go(formAction, (next) => next.startsWith(`${stack.url}/login/callback`), { form: { username: user.preferred_username, password: user.password } });
  if (!done.location?.startsWith(`${stack.url}/login/callback`)) return { access_token: '', status: done.status, body: done.body, code: done.headers.get('x-error-code') };
  const cb = new URL(done.location);
  assert.equal(cb.searchParams.get('state'), state);
  const token = await fetch(`${stack.url}/idp/realms/svc/protocol/openid-connect/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: cb.searchParams.get('code')!, redirect_uri: `${stack.url}/login/callback`, client_id: 'svc-frontend', code_verifier: verifier }),
  });
  const text = await token.text();
  assert.equal(token.status, 200, text);
  return { access_token: (JSON.parse(text) as { access_token: string }).access_token, status: 200, body: text, code: null };
}

test('a company user signs in through brokering and the principal says so', async () => {
  const first = await brokeredSignIn(ALICE);
  assert.ok(company.logins.includes('alice'), 'alice signed in at the company IdP');
  const claimsOf = decodeJwt(first.access_token);
  assert.equal(claimsOf.auth_method, 'upstream_oidc');
  assert.equal(claimsOf.upstream_iss, company.issuer);
  assert.equal(claimsOf.upstream_sub, ALICE.sub);

  const verify = await callJson(stack.url, first.access_token, 'GET', '/v1/auth/verify');
  assert.equal(verify.status, 200, JSON.stringify(verify.body));
  assert.equal(verify.body.email, 'alice@corp.example');
  assert.equal(verify.body.upstream_iss, company.issuer);
  assert.equal(verify.body.upstream_sub, ALICE.sub);
  assert.equal(verify.body.upstream_preferred_username, 'alice');
  assert.deepEqual([...verify.body.roles].sort(), ['admin', 'user'], 'Platform Admins maps to admin');
  const me = await callJson(stack.url, first.access_token, 'GET', '/v1/user/me');
  assert.equal(me.body.auth_method, 'upstream_oidc');
  assert.equal(me.body.display_name, 'Alice Corp');

  // The second sign-in reuses the link: same local account.
  const second = await brokeredSignIn(ALICE);
  assert.equal(decodeJwt(second.access_token).sub, claimsOf.sub);
  // The sign-in log says who signed in how (issue 15 item 5).
  const log = await admin('GET', '/v1/admin/auth/sign-ins');
  assert.equal(log.status, 200, JSON.stringify(log.body));
  const mine = log.body.items.filter((i: { user_id: string }) => i.user_id === claimsOf.sub);
  assert.ok(mine.length >= 2 && mine.every((i: { method: string; issuer: string }) => i.method === 'upstream_oidc' && i.issuer === company.issuer), JSON.stringify(mine));
  const bob = await brokeredSignIn(BOB);
  assert.notEqual(decodeJwt(bob.access_token).sub, claimsOf.sub);
  assert.deepEqual((await callJson(stack.url, bob.access_token, 'GET', '/v1/auth/verify')).body.roles, ['user']);
});

test('a brokered account with a paired phone passes the same second factor before any code', async () => {
  const first = await brokeredSignIn(BOB);
  const pairing = await callJson(stack.url, first.access_token, 'POST', '/v1/account/devices/pairing');
  assert.equal(pairing.status, 201, JSON.stringify(pairing.body));
  const phone = await SimDevice.create();
  assert.equal((await phone.pair(stack.url, pairing.body.enrollment_url, 'bob-phone')).status, 201);

  const b = new CookieBrowser();
  const { uid, verifier } = await beginAuthorization(b);
  const atCompany = await b.go(`${stack.url}/idp/realms/svc/broker/corp/login?interaction=${uid}`, (n) => n.startsWith(`${company.issuer}/interaction/`));
  const page = await b.request(atCompany.location!);
  const formAction = new URL(/action="([^"]+)"/.exec(page.body)![1]!, company.issuer).href;
  const step = await b.go(formAction, (n) => n.startsWith(`${stack.url}/login/callback`), { form: { username: BOB.preferred_username, password: BOB.password } });
  assert.equal(step.status, 200, 'the interaction shows the phone step instead of a code');
  assert.ok(!b.visited.some((u) => u.startsWith(`${stack.url}/login/callback`)), 'no code before the approval');
  const n = Number(/data-testid="number-match"[^>]*>\s*(\d+)/.exec(step.body)?.[1]);
  assert.ok(n >= 10 && n <= 99, 'a number to match');
  const csrf = /name="csrf" value="([^"]+)"/.exec(step.body)![1]!;
  const poll = `${stack.url}/idp/realms/svc/interaction/${uid}/second-factor/poll`;
  const waiting = await b.request(poll, { method: 'POST', headers: { 'x-csrf-token': csrf } });
  assert.equal(waiting.status, 202, waiting.body);

  const item = ((await phone.pending(stack.url)).body as { items: Array<{ challenge_id: string; numbers: number[] }> }).items[0]!;
  assert.ok(item.numbers.includes(n));
  assert.equal((await phone.send(stack.url, item.challenge_id, 'approve', n)).status, 200);
  const approved = JSON.parse((await b.request(poll, { method: 'POST', headers: { 'x-csrf-token': csrf } })).body) as { state: string; location: string };
  assert.equal(approved.state, 'approved');
  const done = await b.go(new URL(approved.location, stack.url).href, (n2) => n2.startsWith(`${stack.url}/login/callback`));
  const cb = new URL(done.location!);
  const token = await fetch(`${stack.url}/idp/realms/svc/protocol/openid-connect/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: cb.searchParams.get('code')!, redirect_uri: `${stack.url}/login/callback`, client_id: 'svc-frontend', code_verifier: verifier }),
  });
  assert.equal(token.status, 200);
  const claimsOf = decodeJwt((await token.json() as { access_token: string }).access_token);
  assert.equal(claimsOf.auth_method, 'upstream_oidc', 'still the brokered identity after the phone step');
  assert.equal(claimsOf.upstream_sub, BOB.sub);
  const log = await admin('GET', '/v1/admin/auth/sign-ins');
  assert.ok(log.body.items.some((i: { user_id: string; method: string; second_factor: string | null }) => i.user_id === claimsOf.sub && i.method === 'upstream_oidc' && i.second_factor === 'push'), 'logged with its second factor');
});

test('an upstream email of an existing local account is not linked', async () => {
  const r = await brokeredSignIn(MALLORY);
  assert.equal(r.access_token, '');
  assert.equal(r.status, 409, r.body);
  assert.equal(r.code, 'upstream_account_conflict');
  assert.match(r.body, /an account with this email already exists here/, 'the browser gets a page that says why');
  assert.doesNotMatch(r.body, /code=|access_token/);
});

test('a forged, replayed or expired state is refused', async () => {
  const cbBase = `${stack.url}/idp/realms/svc/broker/corp/callback`;
  const forged = await new CookieBrowser().request(`${cbBase}?code=abc&state=${randomBytes(16).toString('base64url')}`);
  assert.equal(forged.status, 400); assert.equal(forged.headers.get('x-error-code'), 'state_invalid');
  assert.match(forged.headers.get('content-type') ?? '', /text\/html/);
  assert.equal((await new CookieBrowser().request(cbBase)).status, 400, 'no state at all');

  // Replay: capture a real callback URL, use it once (it finishes), then again.
  const b = new CookieBrowser();
  const { uid } = await beginAuthorization(b);
  const atCompany = await b.go(`${stack.url}/idp/realms/svc/broker/corp/login?interaction=${uid}`, (n) => n.startsWith(`${company.issuer}/interaction/`));
  const page = await b.request(atCompany.location!);
  const formAction = new URL(/action="([^"]+)"/.exec(page.body)![1]!, company.issuer).href;
  const toCallback = await b.go(formAction, (n) => n.startsWith(cbBase), { form: { username: BOB.preferred_username, password: BOB.password } });
  assert.ok(toCallback.location?.startsWith(cbBase));
  const used = await b.request(toCallback.location!);
  assert.equal(used.status, 303, used.body);
  const replay = await b.request(toCallback.location!);
  assert.equal(replay.status, 400); assert.equal(replay.headers.get('x-error-code'), 'state_invalid');

  // A callback handle is bound to the browser holding the interaction cookie.
  const stranger = await new CookieBrowser().request(used.location!);
  assert.equal(stranger.status, 400); assert.equal(stranger.headers.get('x-error-code'), 'state_invalid');

  // Unknown interaction: no state is even created.
  const noInteraction = await new CookieBrowser().request(`${stack.url}/idp/realms/svc/broker/corp/login?interaction=doesnotexist`);
  assert.equal(noInteraction.status, 400);
});
