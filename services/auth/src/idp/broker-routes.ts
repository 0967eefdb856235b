/**
 * Glue between the embedded IdP's sign-in interaction and the upstream broker (issue 15 item 2).
 * Public routes (the IdP authenticates its own flow; the gateway forwards `/idp/*` unchanged):
 *
 * 1. `GET {IDP_PREFIX}/broker/{alias}/login?interaction={uid}`: the interaction must exist; the broker
 *    stores state, nonce and PKCE verifier bound to it and the browser goes (303) to the upstream.
 * 2. `GET {IDP_PREFIX}/broker/{alias}/callback?code&state`: the broker takes the single-use state
 *    (`state_invalid` 400 when forged, replayed or expired), redeems the code and links the local
 *    account; the result waits under a one-time handle (2 minutes) and the browser goes (303) to 3.
 * 3. `GET {IDP_PREFIX}/interaction/{uid}/brokered?handle=`: under the interaction's path, so the
 *    browser's interaction cookie comes along: only the browser that started the interaction can
 *    finish it (a callback URL sent to someone else does not sign them in as another person). The
 *    account's second factor runs as for a password sign-in (`BrokeredLoginHook`: the interaction
 *    page's login challenge, when the account has a paired phone or the policy enforces one); then
 *    the interaction finishes with the brokered identity (`finishLogin`, `auth_method:
 *    upstream_oidc`) and the browser resumes the authorization request, which answers a code.
 *
 * These are browser pages: a refusal (a `DomainError` of the auth table, or a malformed query) is
 * answered with the IdP's problem page (the app's style, strict CSP), its status from the error
 * table and the code in `X-Error-Code` and on the page; never a secret, code or token.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { DomainError } from '../../../shared/kit/domain-error.js';
import {
  BrokerLoginQuerySchema, BrokeredQuerySchema, IdpAliasParamsSchema, InteractionUidParamsSchema, type BrokeredIdentity, type UpstreamBrokerPort,
} from '../contracts/upstream-sso.js';
import { AUTH_ERRORS } from '../contracts.js';
import type { SignInLog } from '../domain/sign-in-log.js';
import { finishLogin } from './finish-login.js';
import { INTERACTION_CSP, problemPage } from './interaction-views.js';

/**
 * The interaction pages' second-factor step, offered to the broker (issue 15 items 1-2): the
 * interaction routes fill `continueLogin` when they register; the broker calls it once the upstream
 * identity is linked, so a brokered account with a paired phone (or under an enforced policy) passes
 * the same login challenge before any code is issued. `finishWith` finishes the interaction with
 * the brokered identity (`auth_method: upstream_oidc`) once the challenge is approved (or at once
 * when none is needed); `continueLogin` answers the browser.
 */
export interface BrokeredLoginHook {
  continueLogin?: (req: FastifyRequest, reply: FastifyReply, userId: string,
    finishWith: (req: IncomingMessage, res: ServerResponse) => Promise<string>) => Promise<FastifyReply>;
}

/** Options of `brokerRoutes`. */
export interface BrokerRoutesOptions {
  provider: Provider;
  broker: UpstreamBrokerPort;
  /** Path the auth service serves the realm at (`/idp/realms/svc`). */
  localPrefix: string;
  /** Unix ms. */
  clock: () => number;
  /** The sign-in log (issue 15 item 5): a brokered sign-in is recorded as `upstream_oidc` with the upstream issuer. */
  signIns?: Pick<SignInLog, 'passed'>;
  /** The interaction pages' second-factor step (absent: the interaction finishes at once). */
  hook?: BrokeredLoginHook;
}

/** How long a finished upstream sign-in waits for its interaction, ms. */
const HANDLE_TTL_MS = 2 * 60_000;
/** At most this many unclaimed handles are kept (oldest dropped first). */
const HANDLE_MAX = 1000;

const pub = { public: true } as const;

const stateInvalid = (): DomainError => new DomainError('state_invalid', 'this sign-in link is invalid, used or expired; start the sign-in again');

/** Register the broker routes (see the module comment). */
export const brokerRoutes: FastifyPluginAsyncTypebox<BrokerRoutesOptions> = async (app, { provider, broker, localPrefix, clock, signIns, hook }) => {
  const handles = new Map<string, { uid: string; identity: BrokeredIdentity; expires: number }>();

  app.setErrorHandler(async (err, _req, reply) => {
    const validation = (err as { validation?: unknown }).validation !== undefined;
    if (!(err instanceof DomainError) && !validation) throw err;
    const code = validation ? 'invalid_request' : (err as DomainError).code;
    const status = validation ? 400 : (AUTH_ERRORS as Record<string, unknown>)[code];
    const message = validation ? 'This sign-in link is malformed.' : (err as DomainError).message;
    return reply.code(typeof status === 'number' ? status : 400)
      .header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').header('x-error-code', code)
      .header('content-security-policy', INTERACTION_CSP).header('x-frame-options', 'DENY').header('referrer-policy', 'no-referrer')
      .send(problemPage(`${message} (${code})`));
  });

  app.get(`${localPrefix}/broker/:alias/login`, { config: pub, schema: { params: IdpAliasParamsSchema, querystring: BrokerLoginQuerySchema } }, async (req, reply) => {
    const interaction = await provider.Interaction.find(req.query.interaction);
    if (!interaction) throw stateInvalid();
    return reply.redirect(await broker.start(req.params.alias, req.query.interaction), 303);
  });

  app.get(`${localPrefix}/broker/:alias/callback`, { config: pub, schema: { params: IdpAliasParamsSchema } }, async (req, reply) => {
    const { interactionUid, identity } = await broker.finish(req.params.alias, new URL(req.url, 'http://callback.invalid'));
    const now = clock();
    for (const [h, v] of handles) if (v.expires <= now || handles.size >= HANDLE_MAX) handles.delete(h); else break;
    const handle = randomBytes(24).toString('base64url');
    handles.set(handle, { uid: interactionUid, identity, expires: now + HANDLE_TTL_MS });
    return reply.redirect(`${localPrefix}/interaction/${encodeURIComponent(interactionUid)}/brokered?handle=${handle}`, 303);
  });

  app.get(`${localPrefix}/interaction/:uid/brokered`, { config: pub, schema: { params: InteractionUidParamsSchema, querystring: BrokeredQuerySchema } }, async (req, reply) => {
    const pending = handles.get(req.query.handle);
    handles.delete(req.query.handle);
    if (!pending || pending.uid !== req.params.uid || pending.expires <= clock()) throw stateInvalid();
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try { details = await provider.interactionDetails(req.raw, reply.raw); } catch { throw stateInvalid(); }
    if (details.uid !== pending.uid) throw stateInvalid();
    const { identity } = pending;
    const clientId = typeof details.params.client_id === 'string' ? details.params.client_id : null;
    const finishWith = (rawReq: IncomingMessage, rawRes: ServerResponse): Promise<string> => finishLogin(provider, rawReq, rawRes, {
      accountId: identity.accountId, authMethod: 'upstream_oidc',
      upstream: {
        iss: identity.upstream_iss, sub: identity.upstream_sub,
        ...(identity.upstream_preferred_username !== undefined ? { preferred_username: identity.upstream_preferred_username } : {}),
      },
    }, { redirect: false });
    // Recorded now, or held until the second factor when one follows (sign-in-log.ts).
    await signIns?.passed({ user_id: identity.accountId, method: 'upstream_oidc', issuer: identity.upstream_iss, client_id: clientId });
    if (hook?.continueLogin) return hook.continueLogin(req, reply, identity.accountId, finishWith);
    return reply.redirect(await finishWith(req.raw, reply.raw), 303);
  });
};
