/**
 * Upstream SSO brokering in a real browser (issue 15 item 2): an admin registers the company's IdP
 * (a second, independent oidc-provider, test/helpers/company-idp.ts); the embedded IdP's sign-in page
 * offers "Continue with Corp SSO"; the browser goes to the company's own login page, signs in there,
 * comes back through the broker callback and lands in the app signed in. The realm's access token and
 * the gateway's principal say `auth_method: upstream_oidc` with the upstream issuer and subject, and
 * the company group maps to its role. An existing local account's email is refused with the app's
 * problem page, not linked. Screenshots: test-results/e2e-upstream-sso-*.png.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { callJson, login } from '../helpers/stack.js';
import { startCompanyIdp, type CompanyUser } from '../helpers/company-idp.js';
import { ADMIN, haveChromium, launch, newPage, shot, startE2E } from './support.js';

const skip = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

const CAROL: CompanyUser = { sub: 'c-carol-7', password: 'carol-company-pw', email: 'carol@corp.example', name: 'Carol Corp', preferred_username: 'carol', groups: ['Platform Admins'] };
const TAKEN: CompanyUser = { sub: 'c-taken-8', password: 'taken-company-pw', email: ADMIN.email, name: 'Not The Admin', preferred_username: 'taken', groups: [] };

test('a company user signs in through the brokered IdP in a real browser and the principal says so', { skip }, async (t) => {
  const stack = await startE2E({ SVC_GROUP_ROLE_MAP: 'Platform Admins:admin' });
  const origin = new URL(stack.url).origin;
  const company = await startCompanyIdp({ redirectUris: [`${origin}/idp/realms/svc/broker/corp/callback`], users: [CAROL, TAKEN] });
  const browser = await launch();
  t.after(async () => { await browser.close(); await company.stop(); await stack.stop(); });

  const adminToken = await login(stack.url, ADMIN.email, ADMIN.password);
  const created = await callJson(stack.url, adminToken, 'POST', '/v1/admin/sso/idps', {
    alias: 'corp', issuer: company.issuer, client_id: company.clientId, client_secret: company.clientSecret,
    scopes: ['email', 'profile', 'groups'], claims: { email: 'email', name: 'name', groups: 'groups' }, display_name: 'Corp SSO',
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));

  const { page, errors } = await newPage(browser);
  const tokens: Array<Record<string, unknown>> = [];
  page.on('response', (res) => {
    if (new URL(res.url()).pathname !== '/idp/realms/svc/protocol/openid-connect/token') return;
    void res.json().then((b: Record<string, unknown>) => { tokens.push(b); }, () => {});
  });

  await page.goto(stack.url);
  await page.getByRole('button', { name: 'Continue with Corp SSO' }).waitFor({ timeout: 15_000 });
  assert.match(new URL(page.url()).pathname, /^\/idp\/realms\/svc\/interaction\//);
  await shot(page, 'e2e-upstream-sso-offer');
  await page.getByRole('button', { name: 'Continue with Corp SSO' }).click();

  // The company's own login page, on the company's origin.
  await page.getByRole('heading', { name: 'Company sign-in' }).waitFor({ timeout: 15_000 });
  assert.equal(new URL(page.url()).origin, company.issuer);
  await page.getByLabel('Username').fill('carol');
  await page.getByLabel('Password').fill(CAROL.password);
  await shot(page, 'e2e-upstream-sso-company');
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 20_000 });
  assert.equal(new URL(page.url()).origin, origin, 'back in the app');
  assert.deepEqual(company.logins, ['carol']);
  await shot(page, 'e2e-upstream-sso-signed-in');
  const access = tokens.find((b) => typeof b.access_token === 'string')?.access_token as string;
  assert.ok(access, 'the app received the realm\'s token');
  const claims = decodeJwt(access);
  assert.equal(claims.iss, `${origin}/idp/realms/svc`);
  assert.equal(claims.auth_method, 'upstream_oidc');
  assert.equal(claims.upstream_iss, company.issuer);
  assert.equal(claims.upstream_sub, CAROL.sub);
  const verify = await callJson(stack.url, access, 'GET', '/v1/auth/verify');
  assert.equal(verify.status, 200);
  assert.equal(verify.body.email, CAROL.email);
  assert.equal(verify.body.upstream_sub, CAROL.sub);
  assert.equal(verify.body.upstream_preferred_username, 'carol');
  assert.ok(verify.body.roles.includes('admin'), 'Platform Admins maps to admin');
  assert.deepEqual(errors, []);

  // A company identity whose email is a local account's is refused on a page that says why.
  const ctx2 = await newPage(browser);
  await ctx2.page.goto(stack.url);
  await ctx2.page.getByRole('button', { name: 'Continue with Corp SSO' }).click({ timeout: 15_000 });
  await ctx2.page.getByRole('heading', { name: 'Company sign-in' }).waitFor({ timeout: 15_000 });
  await ctx2.page.getByLabel('Username').fill('taken');
  await ctx2.page.getByLabel('Password').fill(TAKEN.password);
  await ctx2.page.getByRole('button', { name: 'Sign in' }).click();
  await ctx2.page.getByRole('alert').filter({ hasText: 'an account with this email already exists here' }).waitFor({ timeout: 15_000 });
  await shot(ctx2.page, 'e2e-upstream-sso-conflict');
});
