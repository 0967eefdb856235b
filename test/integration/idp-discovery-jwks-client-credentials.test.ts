/**
 * Issue 15 item 1: the embedded OpenID Connect provider, from outside, through the gateway.
 * - discovery at `{public}/idp/realms/svc/.well-known/openid-configuration` validates: required OIDC
 *   metadata, `issuer` equal to the URL it was fetched under, PKCE S256 only, every endpoint under the
 *   issuer (Keycloak-style paths), and the same public URLs when fetched straight from the auth port;
 * - the JWKS (`.../protocol/openid-connect/certs`) holds EC P-256 keys with `kid` and no private members;
 * - `client_credentials` for a `service-<name>` client (HTTP Basic) gives an ES256 JWT with
 *   `aud: svc-internal`, `client_id`/`sub` the client, 10 minutes, verifiable with the JWKS; the
 *   gateway refuses it as a bearer (wrong audience, 401); a token from an unknown issuer is refused (401);
 * - a password grant on `svc-frontend` is refused (`unauthorized_client`), and so is a wrong client secret.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';
import { startStack, type TestStack } from '../helpers/stack.js';

let stack: TestStack;
let issuer: string;
let secrets: Record<string, string>;

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function token(body: Record<string, string>, auth?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (auth) headers.authorization = auth;
  const r = await fetch(`${issuer}/protocol/openid-connect/token`, { method: 'POST', headers, body: new URLSearchParams(body).toString() });
  return { status: r.status, body: await r.json() as Record<string, unknown> };
}

before(async () => {
  stack = await startStack();
  issuer = `${stack.url}/idp/realms/svc`;
  secrets = JSON.parse(readFileSync(`${stack.dataDir}/secrets/generated.json`, 'utf8')) as Record<string, string>;
});
after(async () => { await stack?.stop(); });

test('the discovery document validates and names the public issuer and Keycloak-style endpoints', async () => {
  const r = await fetch(`${issuer}/.well-known/openid-configuration`);
  assert.equal(r.status, 200);
  const d = await r.json() as Record<string, unknown>;
  assert.equal(d.issuer, issuer);
  for (const f of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']) {
    assert.ok(d[f] !== undefined, `discovery lacks ${f}`);
  }
  assert.equal(d.authorization_endpoint, `${issuer}/protocol/openid-connect/auth`);
  assert.equal(d.token_endpoint, `${issuer}/protocol/openid-connect/token`);
  assert.equal(d.jwks_uri, `${issuer}/protocol/openid-connect/certs`);
  assert.equal(d.userinfo_endpoint, `${issuer}/protocol/openid-connect/userinfo`);
  assert.equal(d.revocation_endpoint, `${issuer}/protocol/openid-connect/revoke`);
  assert.equal(d.end_session_endpoint, `${issuer}/protocol/openid-connect/logout`);
  assert.equal(d.introspection_endpoint, `${issuer}/protocol/openid-connect/token/introspect`);
  for (const [k, v] of Object.entries(d)) {
    if (k.endsWith('_endpoint') || k === 'jwks_uri') assert.ok(String(v).startsWith(`${issuer}/`), `${k} ${String(v)} is not under the issuer`);
  }
  assert.deepEqual(d.code_challenge_methods_supported, ['S256']);
  assert.ok((d.response_types_supported as string[]).includes('code'));
  assert.ok((d.grant_types_supported as string[]).includes('client_credentials'));
  assert.ok((d.id_token_signing_alg_values_supported as string[]).includes('ES256'));
  assert.ok((d.subject_types_supported as string[]).includes('public'));

  // Straight from the auth port (not through the gateway): the same public URLs.
  const authUrl = stack.sup.status().find((x) => x.name === 'auth')!.url;
  {
    const direct = await (await fetch(`${authUrl}/idp/realms/svc/.well-known/openid-configuration`)).json() as Record<string, unknown>;
    assert.equal(direct.issuer, issuer);
    assert.equal(direct.token_endpoint, d.token_endpoint);
  }
});

test('the JWKS publishes EC P-256 signing keys with kids and no private parts', async () => {
  const r = await fetch(`${issuer}/protocol/openid-connect/certs`);
  assert.equal(r.status, 200);
  const jwks = await r.json() as JSONWebKeySet;
  assert.ok(jwks.keys.length >= 1);
  for (const k of jwks.keys) {
    assert.equal(k.kty, 'EC');
    assert.equal(k.crv, 'P-256');
    assert.equal(typeof k.kid, 'string');
    assert.ok(k.x && k.y);
    for (const priv of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) assert.equal((k as Record<string, unknown>)[priv], undefined, `JWKS leaks ${priv}`);
  }
});

test('client_credentials gives a service token for svc-internal, which the gateway refuses as a bearer', async () => {
  const id = 'service-memory';
  const secret = secrets[`IDP_CLIENT_SECRET:${id}`];
  assert.ok(secret, 'the service client secret was generated on first start');
  const r = await token({ grant_type: 'client_credentials' }, basic(id, secret));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.token_type, 'Bearer');
  assert.equal(r.body.expires_in, 600);
  const at = String(r.body.access_token);
  assert.equal(decodeProtectedHeader(at).alg, 'ES256');
  const jwks = await (await fetch(`${issuer}/protocol/openid-connect/certs`)).json() as JSONWebKeySet;
  const { payload } = await jwtVerify(at, createLocalJWKSet(jwks), { issuer, audience: 'svc-internal', algorithms: ['ES256'] });
  assert.equal(payload.client_id, id);
  assert.equal(payload.sub, id);
  assert.equal(payload.exp! - payload.iat!, 600);
  assert.equal(payload.realm_access, undefined);

  const gw = await fetch(`${stack.url}/v1/auth/verify`, { headers: { authorization: `Bearer ${at}` } });
  assert.equal(gw.status, 401, 'a token for svc-internal is not a user bearer');

  const bad = await token({ grant_type: 'client_credentials' }, basic(id, `${secret}x`));
  assert.equal(bad.status, 401);
  assert.equal(bad.body.error, 'invalid_client');
});

test('a token from an unknown issuer is refused by the gateway', async () => {
  const { privateKey } = await generateKeyPair('ES256');
  const now = Math.floor(Date.now() / 1000);
  const forged = await new SignJWT({ realm_access: { roles: ['admin'] }, email: 'x@example.com' })
    .setProtectedHeader({ alg: 'ES256', kid: 'x' }).setIssuer('https://evil.example/idp/realms/svc').setAudience('svc-frontend')
    .setSubject('u1').setIssuedAt(now).setExpirationTime(now + 300).sign(privateKey);
  const gw = await fetch(`${stack.url}/v1/auth/verify`, { headers: { authorization: `Bearer ${forged}` } });
  assert.equal(gw.status, 401);
});

test('a password grant on svc-frontend is refused', async () => {
  const r = await token({ grant_type: 'password', username: 'admin@example.com', password: 'correct horse battery staple', client_id: 'svc-frontend' });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.ok(['unauthorized_client', 'unsupported_grant_type'].includes(String(r.body.error)), JSON.stringify(r.body));
  assert.equal(r.body.access_token, undefined);
});

test('openid-client, as a relying party, discovers the realm and gets a service token', async () => {
  const oidc = await import('openid-client');
  const id = 'service-audit';
  const secret = secrets[`IDP_CLIENT_SECRET:${id}`]!;
  const config = await oidc.discovery(new URL(issuer), id, undefined, oidc.ClientSecretBasic(secret), { execute: [oidc.allowInsecureRequests] });
  assert.equal(config.serverMetadata().issuer, issuer);
  assert.ok(config.serverMetadata().supportsPKCE('S256'));
  const t = await oidc.clientCredentialsGrant(config);
  assert.equal(t.token_type.toLowerCase(), 'bearer');
  // expiresIn() counts down from the moment the response arrived, so a slow machine may already read 599.
  const left = t.expiresIn()!;
  assert.ok(left > 590 && left <= 600, `expires_in ${left}`);
  const jwks = await (await fetch(`${issuer}/protocol/openid-connect/certs`)).json() as JSONWebKeySet;
  const { payload } = await jwtVerify(t.access_token, createLocalJWKSet(jwks), { issuer, audience: 'svc-internal' });
  assert.equal(payload.client_id, id);
});
