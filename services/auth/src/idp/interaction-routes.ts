/**
 * The embedded IdP's sign-in interaction (issue 15 item 1; spec "Authentication"): our own pages at
 * `{IDP_PREFIX}/interaction/{uid}` (oidc-provider's dev interactions are off), public routes on the
 * auth service that the gateway forwards unchanged.
 *
 * - `GET  .../interaction/{uid}`: prompt `login` -> the password form (or the phone step when a
 *   second factor is pending, or its final state); prompt `consent` -> first-party clients
 *   (`svc-frontend`) are granted what they asked for without a page and the interaction finishes;
 *   other clients are refused (`consent_required`).
 * - `POST .../interaction/{uid}/login` (form: csrf, username, password): `LoginService.authenticate`
 *   (local then directory, same throttling and errors as `POST /v1/auth/login`); when the account
 *   needs a second factor (`ChallengeService.required`: a paired phone, or enforcement) a login
 *   challenge is opened and the phone step shown: the interaction finishes only after it is
 *   approved, so no code (and no token) is issued before. Else the login finishes at once.
 * - `POST .../interaction/{uid}/second-factor` (form: csrf, code): the offline or a recovery code.
 * - `POST .../interaction/{uid}/second-factor/poll` (header `x-csrf-token`): `{state: pending |
 *   approved (with location) | final | retry (with message)}`, polled by the page's script.
 * - `POST .../interaction/{uid}/abort` (form: csrf): the interaction ends with `access_denied`.
 * - `GET  {INTERACTION_ASSETS}/idp.css|second-factor.js|logout.js`.
 *
 * CSRF: every post carries `csrf` = HMAC-SHA256(per-process key, uid), and oidc-provider's own
 * interaction cookie (SameSite=Lax, scoped to the interaction) must match the uid. Pages are
 * `no-store` under `INTERACTION_CSP`. Secrets (passwords, codes) never reach logs.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { toDataURL } from 'qrcode';
import { DomainError, statusOf } from '../../../shared/kit/domain-error.js';
import { AUTH_ERRORS } from '../contracts.js';
import type { ClientHopVerifier } from '../../../shared/identity/client-hop.js';
import { IDP_PREFIX, type PublicUpstreamIdp, type UpstreamBrokerPort } from '../contracts/upstream-sso.js';
import type { LoginChallengeCreated } from '../contracts/login-challenge.js';
import type { ChallengeService } from '../domain/challenges.js';
import type { LoginService } from '../domain/login.js';
import type { UserRecord } from '../domain/ports.js';
import { clientIp } from '../routes/session.js';
import type { BrokeredLoginHook } from './broker-routes.js';
import { IDP_CSS, LOGOUT_JS, SECOND_FACTOR_JS } from './interaction-assets.js';
import { INTERACTION_ASSETS, INTERACTION_CSP, finalPage, loginPage, problemPage, secondFactorPage } from './interaction-views.js';
import { pendingOutcome, PendingLogins } from './interaction-state.js';
import { signInCodeMessage } from '../contracts/sign-in-words.js';

/** The parts of an oidc-provider `Interaction` these pages read. */
export interface InteractionDetails {
  uid: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId?: string } | undefined;
  grantId?: string | undefined;
  returnTo: string;
}

/** A grant as oidc-provider's `Grant` model offers it (consent of first-party clients). */
export interface GrantLike {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}

/** The parts of an oidc-provider `Provider` the interaction uses. */
export interface InteractionProvider {
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, opts?: { mergeWithLastSubmission?: boolean }): Promise<string>;
  Grant: { new (props: { accountId: string; clientId: string }): GrantLike; find?(id: string): Promise<GrantLike | undefined> };
}

/** Options of `interactionRoutes`. */
export interface InteractionRoutesOptions {
  provider: InteractionProvider;
  login: Pick<LoginService, 'authenticate' | 'signedIn'>;
  /** The realm's issuer, for the sign-in log. */
  issuer?: string;
  challenges: ChallengeService;
  /** Verifies the gateway's client-address stamp (throttling by the browser's address). */
  hop: ClientHopVerifier;
  /**
   * Finish the interaction's login with a local account without answering (finish-login.ts
   * `finishLogin(provider, req, res, {accountId, authMethod: 'password'}, {redirect: false})`);
   * @returns the URL to send the browser to (oidc-provider's `returnTo`).
   */
  finishLogin: (req: IncomingMessage, res: ServerResponse, accountId: string) => Promise<string>;
  /** Upstream IdPs to offer as buttons (issue 15 item 2), when brokering is wired. */
  broker?: UpstreamBrokerPort;
  /** Filled here: the second-factor step for brokered sign-ins (issue 15 item 2; broker-routes.ts). */
  brokered?: BrokeredLoginHook;
  /** Clients whose consent is implied (first party). Default `["svc-frontend"]`. */
  firstPartyClients?: readonly string[];
  /** Whether password sign-in is on (`AuthConfig.passwordLoginEnabled`). */
  passwordLoginEnabled: boolean;
  clock?: () => number;
}

type Body = Record<string, string | undefined>;

/** Register the interaction pages (not encapsulation-breaking: own form parser in this scope). */
export const interactionRoutes: FastifyPluginAsync<InteractionRoutesOptions> = async (app: FastifyInstance, opts) => {
  const clock = opts.clock ?? Date.now;
  const csrfKey = randomBytes(32);
  const firstParty = new Set(opts.firstPartyClients ?? ['svc-frontend']);
  const pending = new PendingLogins(clock);
  const base = `${IDP_PREFIX}/interaction/:uid`;
  const config = { public: true } as const;

  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
  }

  const csrfOf = (uid: string): string => createHmac('sha256', csrfKey).update(`interaction:${uid}`).digest('base64url');
  const csrfOk = (uid: string, given: unknown): boolean => {
    if (typeof given !== 'string') return false;
    const a = Buffer.from(given);
    const b = Buffer.from(csrfOf(uid));
    return a.length === b.length && timingSafeEqual(a, b);
  };
  const html = (reply: FastifyReply, body: string, status = 200): FastifyReply => reply.code(status)
    .header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store')
    .header('content-security-policy', INTERACTION_CSP).header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff').send(body);
  const goTo = (reply: FastifyReply, location: string): FastifyReply => reply.code(303).header('cache-control', 'no-store').header('location', location).send();

  /** The interaction of this browser for `uid`, or null (expired, another browser, forged). */
  const details = async (req: FastifyRequest, reply: FastifyReply): Promise<InteractionDetails | null> => {
    try {
      const d = await opts.provider.interactionDetails(req.raw, reply.raw);
      return d.uid === (req.params as { uid: string }).uid ? d : null;
    } catch {
      return null;
    }
  };
  const gone = (reply: FastifyReply): FastifyReply => html(reply, problemPage('This sign-in has expired or was started in another window.'), 400);
  const restartUrl = (d: InteractionDetails): string => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(d.params)) if (typeof v === 'string' && k !== 'prompt') q.set(k, v);
    q.set('prompt', 'login');
    return `${IDP_PREFIX}/protocol/openid-connect/auth?${q.toString()}`;
  };
  const upstream = async (): Promise<PublicUpstreamIdp[]> => { try { return (await opts.broker?.list()) ?? []; } catch { return []; } };
  const loginForm = async (uid: string, extra: { username?: string; error?: string } = {}): Promise<string> => loginPage({
    uid, csrf: csrfOf(uid), upstream: await upstream(), ...extra,
    ...(opts.passwordLoginEnabled ? {} : { notice: 'Password sign-in is switched off on this server.' }),
  });
  const phoneStep = async (uid: string, challenge: LoginChallengeCreated, extra: { codeMode?: boolean; codeError?: string } = {}): Promise<string> => {
    let qrDataUrl: string | undefined;
    if (challenge.enrollment_url) {
      try { qrDataUrl = await toDataURL(challenge.enrollment_url, { errorCorrectionLevel: 'L', margin: 2, width: 240 }); } catch { qrDataUrl = undefined; }
    }
    return secondFactorPage({ uid, csrf: csrfOf(uid), challenge, ...(qrDataUrl ? { qrDataUrl } : {}), ...extra }, clock());
  };

  /** Finish the login of `userId` and answer where the browser goes next. */
  const finish = async (req: FastifyRequest, reply: FastifyReply, userId: string): Promise<string> => {
    const uid = (req.params as { uid: string }).uid;
    const custom = pending.get(uid)?.finishWith;
    const to = custom ? await custom(req.raw, reply.raw) : await opts.finishLogin(req.raw, reply.raw, userId);
    pending.drop(uid);
    return to;
  };

  // Issue 15 item 2: a brokered sign-in runs the same second factor before it finishes (its own finish).
  if (opts.brokered) {
    opts.brokered.continueLogin = async (req, reply, userId, finishWith) => {
      const uid = (req.params as { uid: string }).uid;
      if (!(await opts.challenges.required(userId)).required) return goTo(reply, await finishWith(req.raw, reply.raw));
      try {
        const challenge = await opts.challenges.create({
          user_id: userId, client_ip: clientIp(req, opts.hop).ip.slice(0, 64), user_agent: String(req.headers['user-agent'] ?? '').slice(0, 512),
        });
        pending.put(uid, { userId, challenge, finishWith });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        return html(reply, problemPage(signInCodeMessage(err.code)), statusOf(AUTH_ERRORS, err.code));
      }
      return goTo(reply, `${IDP_PREFIX}/interaction/${encodeURIComponent(uid)}`);
    };
  }

  app.get(`${INTERACTION_ASSETS}/idp.css`, { config }, async (_req, reply) => reply
    .header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(IDP_CSS));
  app.get(`${INTERACTION_ASSETS}/second-factor.js`, { config }, async (_req, reply) => reply
    .header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SECOND_FACTOR_JS));
  app.get(`${INTERACTION_ASSETS}/logout.js`, { config }, async (_req, reply) => reply
    .header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(LOGOUT_JS));

  app.get(base, { config }, async (req, reply) => {
    const d = await details(req, reply);
    if (!d) return gone(reply);
    if (d.prompt.name === 'consent') {
      const clientId = String(d.params.client_id ?? '');
      if (!firstParty.has(clientId) || !d.session?.accountId) {
        return goTo(reply, await opts.provider.interactionResult(req.raw, reply.raw, { error: 'consent_required', error_description: 'this client needs consent' }, { mergeWithLastSubmission: false }));
      }
      const grantId = await grantAll(opts.provider, d, clientId, d.session.accountId);
      return goTo(reply, await opts.provider.interactionResult(req.raw, reply.raw, { consent: { grantId } }, { mergeWithLastSubmission: true }));
    }
    const p = pending.get(d.uid);
    if (p?.final) return html(reply, finalPage(p.final, restartUrl(d)));
    if (p) return html(reply, await phoneStep(d.uid, p.challenge));
    return html(reply, await loginForm(d.uid));
  });

  app.post(`${base}/login`, { config }, async (req, reply) => {
    const d = await details(req, reply);
    const body = (req.body ?? {}) as Body;
    if (!d || !csrfOk(d.uid, body.csrf)) return gone(reply);
    const username = (body.username ?? '').trim();
    const password = body.password ?? '';
    if (!username || !password) return html(reply, await loginForm(d.uid, { username, error: 'Enter a username and a password.' }), 400);
    const client = clientIp(req, opts.hop);
    let user: UserRecord;
    try {
      user = await opts.login.authenticate(username, password, client.ip);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const retry = err.headers?.['retry-after'];
      if (retry) void reply.header('retry-after', retry);
      return html(reply, await loginForm(d.uid, { username, error: signInCodeMessage(err.code) }), statusOf(AUTH_ERRORS, err.code));
    }
    // The sign-in log holds this until the second factor when one follows (sign-in-log.ts).
    await opts.login.signedIn(user, client.ip, { method: 'password', client_id: typeof d.params.client_id === 'string' ? d.params.client_id : null, issuer: opts.issuer ?? null });
    const userId = user.id;
    const need = await opts.challenges.required(userId);
    if (!need.required) return goTo(reply, await finish(req, reply, user.id));
    try {
      const challenge = await opts.challenges.create({
        user_id: userId, client_ip: client.ip.slice(0, 64), user_agent: String(req.headers['user-agent'] ?? '').slice(0, 512),
      });
      pending.put(d.uid, { userId, challenge });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return html(reply, await loginForm(d.uid, { username, error: signInCodeMessage(err.code) }), statusOf(AUTH_ERRORS, err.code));
    }
    return goTo(reply, `${IDP_PREFIX}/interaction/${encodeURIComponent(d.uid)}`);
  });

  app.post(`${base}/second-factor`, { config }, async (req, reply) => {
    const d = await details(req, reply);
    const body = (req.body ?? {}) as Body;
    if (!d || !csrfOk(d.uid, body.csrf)) return gone(reply);
    const p = pending.get(d.uid);
    if (!p) return goTo(reply, `${IDP_PREFIX}/interaction/${encodeURIComponent(d.uid)}`);
    if (p.final) return html(reply, finalPage(p.final, restartUrl(d)));
    const code = normaliseCode(body.code ?? '');
    if (!code) return html(reply, await phoneStep(d.uid, p.challenge, { codeMode: true, codeError: pendingOutcome('invalid_request', true).message }), 400);
    const o = await verify(opts.challenges, p, code);
    if (o.state === 'approved') return goTo(reply, await finish(req, reply, p.userId));
    if (o.state === 'final') { pending.fail(d.uid, o.message); return html(reply, finalPage(o.message, restartUrl(d))); }
    const codeError = o.state === 'retry' ? o.message : pendingOutcome('code_invalid', true).message;
    return html(reply, await phoneStep(d.uid, p.challenge, { codeMode: true, codeError }), 401);
  });

  app.post(`${base}/second-factor/poll`, { config }, async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    const d = await details(req, reply);
    if (!d || !csrfOk(d.uid, req.headers['x-csrf-token'])) return reply.code(400).send({ state: 'final', message: 'This sign-in has expired.' });
    const p = pending.get(d.uid);
    if (!p) return reply.code(409).send({ state: 'final', message: 'This sign-in has expired.' });
    if (p.final) return reply.send({ state: 'final', message: p.final });
    const o = await verify(opts.challenges, p);
    if (o.state === 'approved') return reply.send({ state: 'approved', location: await finish(req, reply, p.userId) });
    if (o.state === 'final') { pending.fail(d.uid, o.message); return reply.send(o); }
    return reply.code(o.state === 'pending' ? 202 : 200).send(o);
  });

  app.post(`${base}/abort`, { config }, async (req, reply) => {
    const d = await details(req, reply);
    const body = (req.body ?? {}) as Body;
    if (!d || !csrfOk(d.uid, body.csrf)) return gone(reply);
    pending.drop(d.uid);
    return goTo(reply, await opts.provider.interactionResult(req.raw, reply.raw, { error: 'access_denied', error_description: 'the user cancelled the sign-in' }, { mergeWithLastSubmission: false }));
  });
};

/** One verdict of the challenge as the page reads it. */
type Verdict = { state: 'approved' } | { state: 'pending' } | { state: 'final'; message: string } | { state: 'retry'; message: string };

async function verify(challenges: ChallengeService, p: { userId: string; challenge: LoginChallengeCreated }, code?: string): Promise<Verdict> {
  try {
    const v = await challenges.verify(p.challenge.challenge_id, code);
    if (v.status === 'pending') return { state: 'pending' };
    if (v.user_id !== p.userId) return { state: 'final', message: pendingOutcome('challenge_expired', false).message };
    return { state: 'approved' };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const o = pendingOutcome(err.code, code !== undefined);
    return o.final ? { state: 'final', message: o.message } : { state: 'retry', message: o.message };
  }
}

/** A typed code without spaces, recovery codes in lower case; null when it is neither shape. */
function normaliseCode(text: string): string | null {
  const t = text.replace(/\s+/g, '');
  if (/^\d{6}$/.test(t)) return t;
  const r = t.toLowerCase();
  if (/^[a-z2-7]{4}-?[a-z2-7]{4}-?[a-z2-7]{4}$/.test(r)) return r.length === 12 ? `${r.slice(0, 4)}-${r.slice(4, 8)}-${r.slice(8)}` : r;
  return null;
}

/** Grant a first-party client everything the interaction's consent prompt lists as missing. */
async function grantAll(provider: InteractionProvider, d: InteractionDetails, clientId: string, accountId: string): Promise<string> {
  const grant = (d.grantId && provider.Grant.find ? await provider.Grant.find(d.grantId) : undefined) ?? new provider.Grant({ accountId, clientId });
  const det = d.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (det.missingOIDCScope?.length) grant.addOIDCScope(det.missingOIDCScope.join(' '));
  if (det.missingOIDCClaims?.length) grant.addOIDCClaims(det.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(det.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  return grant.save();
}
