/**
 * Upstream SSO brokering (issue 15 item 2; spec "Gateway-owned admin" `/v1/admin/sso/idps`,
 * "Public auth surface" `GET /v1/auth/idps`, "Principal" `upstream_*`). Implements
 * `UpstreamBrokerPort` for the embedded IdP's interaction and the admin surface.
 *
 * - Admin: upstream IdPs are stored with their client secret sealed (`SecretSealer`); no answer ever
 *   carries it. The issuer must be https (http only on loopback) and may not reach the workstation's
 *   own ports or a link-local address (`UpstreamOidcPort.checkIssuer`, the outbound guard).
 * - Sign-in: `start` stores a single-use state (with nonce and PKCE verifier, 10 minutes) bound to the
 *   interaction and answers the upstream authorization URL; `finish` takes the state (a forged,
 *   replayed or expired one is `state_invalid`), redeems the code (PKCE, state, nonce, ID token
 *   checks in openid-client) and maps the claims to a local account.
 * - Account mapping: the link `(upstream_iss, upstream_sub)` -> local account is the identity. First
 *   sign-in creates the account: email from the mapped claim (lower-cased), display name from the
 *   mapped name claim (else preferred_username, else the email), no password, roles `user` plus what
 *   SVC_GROUP_ROLE_MAP gives the mapped groups (recomputed at every sign-in, like directory accounts).
 *   An email already held by a local account that is not linked to this upstream identity is NEVER
 *   linked silently: `upstream_account_conflict` (409), whatever `email_verified` says (an upstream
 *   admin could assert any address; taking over a password account must not be one claim away).
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import { monotonicFactory } from 'ulid';
import type { Transactor } from './ports.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import {
  BROKER_STATE_TTL_MS, IDP_PREFIX, brokerCallbackPath,
  type BrokeredIdentity, type ClaimsMapping, type CreateUpstreamIdp, type PublicUpstreamIdp, type UpdateUpstreamIdp,
  type UpstreamBrokerPort, type UpstreamIdpTestResult, type UpstreamIdpView,
} from '../contracts/upstream-sso.js';
import { LIMITS } from '../contracts.js';
import { directoryRoles } from './directory-login.js';
import type { UserRecord, UserStore } from './ports.js';

/** A stored upstream IdP (the secret sealed). */
export interface UpstreamIdpRecord {
  alias: string;
  issuer: string;
  client_id: string;
  /** Sealed by `SecretSealer.seal(secret, alias)`. */
  client_secret_enc: string;
  scopes: string[];
  claims: ClaimsMapping;
  display_name: string | null;
  enabled: boolean;
  /** RFC 3339 UTC. */
  created_at: string;
  updated_at: string;
}

/** `upstream_idps`. */
export interface UpstreamIdpStore {
  /** @returns false when the alias is taken. */
  insert(rec: UpstreamIdpRecord): Awaitable<boolean>;
  save(rec: UpstreamIdpRecord): Awaitable<void>;
  get(alias: string): Awaitable<UpstreamIdpRecord | null>;
  /** Ordered by alias. */
  list(): Awaitable<UpstreamIdpRecord[]>;
  /** @returns false when there was none. */
  remove(alias: string): Awaitable<boolean>;
}

/** A link from an upstream identity to a local account. */
export interface UpstreamLinkRecord {
  upstream_iss: string;
  upstream_sub: string;
  user_id: string;
  alias: string;
  preferred_username: string | null;
  /** The mapped groups at the last sign-in (the `groups` claim of the account's tokens). */
  groups: string[];
  created_at: string;
  last_login_at: string;
}

/** `upstream_links`. */
export interface UpstreamLinkStore {
  /** Insert, or update alias, preferred_username, groups and last_login_at. */
  put(rec: UpstreamLinkRecord): Awaitable<void>;
  get(iss: string, sub: string): Awaitable<UpstreamLinkRecord | null>;
  /** Most recent sign-in first. */
  byUser(userId: string): Awaitable<UpstreamLinkRecord[]>;
}

/** A pending brokered sign-in. */
export interface BrokerStateRecord {
  /** The random state sent upstream (the store keeps only its hash). */
  state: string;
  nonce: string;
  code_verifier: string;
  interaction_uid: string;
  alias: string;
  /** Unix ms. */
  expires_at: number;
  used_at: number | null;
}

/** `upstream_broker_states`. */
export interface BrokerStateStore {
  insert(rec: BrokerStateRecord): Awaitable<void>;
  /** Mark the state used and answer it; null when unknown or already used. */
  take(state: string, now: number): Awaitable<BrokerStateRecord | null>;
  /** Delete states that expired before `before` (unix ms). */
  prune(before: number): Awaitable<void>;
}

/** Seals client secrets at rest (`context` is bound: the alias). */
export interface SecretSealer {
  seal(plain: string, context: string): string;
  /** @throws when the sealed value was tampered with or sealed for another context. */
  open(sealed: string, context: string): string;
}

/** What the HTTP side needs to talk to one upstream as its client. */
export interface UpstreamClientSettings { issuer: string; client_id: string; client_secret: string }

/** The endpoints discovery found. */
export interface UpstreamMetadata { issuer: string; authorization_endpoint: string; token_endpoint: string }

/** The upstream OpenID Connect provider, over HTTP (`clients/upstream-oidc.ts`). */
export interface UpstreamOidcPort {
  /** @throws `issuer_invalid` (syntax, scheme), `url_not_allowed` (own port, link-local). */
  checkIssuer(issuer: string): Promise<void>;
  /** @throws `upstream_unavailable`, `url_not_allowed`. */
  metadata(c: UpstreamClientSettings): Promise<UpstreamMetadata>;
  /** Fresh random state, nonce and PKCE verifier. */
  newChecks(): { state: string; nonce: string; code_verifier: string };
  /** The authorization URL (code flow, PKCE S256). @throws `upstream_unavailable`. */
  authorizationUrl(c: UpstreamClientSettings, p: { redirect_uri: string; scope: string; state: string; nonce: string; code_verifier: string }): Promise<string>;
  /**
   * Redeem the code of `callbackUrl` (its origin and path are the registered redirect URI).
   * @returns the ID token claims, completed by userinfo. @throws `upstream_rejected`, `upstream_unavailable`.
   */
  redeem(c: UpstreamClientSettings, callbackUrl: URL, checks: { state: string; nonce: string; code_verifier: string }): Promise<Record<string, unknown>>;
}

/** Dependencies of `UpstreamBroker`. */
export interface UpstreamBrokerDeps {
  idps: UpstreamIdpStore;
  links: UpstreamLinkStore;
  states: BrokerStateStore;
  users: UserStore;
  oidc: UpstreamOidcPort;
  sealer: SecretSealer;
  tx: Transactor;
  /** Unix ms. */
  clock: () => number;
  /** The workstation's public URL (no trailing slash). */
  publicUrl: string;
  /** SVC_GROUP_ROLE_MAP. */
  groupRoleMap: Readonly<Record<string, readonly string[]>>;
}

const newId = monotonicFactory();

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** The mapped groups: a string array claim, or one string (space or comma separated). */
function groupsOf(v: unknown): string[] {
  const list = Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string') : typeof v === 'string' ? v.split(/[\s,]+/) : [];
  return [...new Set(list.map((g) => g.trim()).filter((g) => g !== ''))].slice(0, 256);
}

function withOpenid(scopes: readonly string[]): string[] {
  return [...new Set(['openid', ...scopes])];
}

/** The broker and its admin surface. */
export class UpstreamBroker implements UpstreamBrokerPort {
  constructor(private readonly d: UpstreamBrokerDeps) {}

  /** `{publicUrl}/idp/realms/svc/broker/{alias}/callback`. */
  redirectUri(alias: string): string { return `${this.d.publicUrl}${brokerCallbackPath(alias)}`; }

  async list(): Promise<PublicUpstreamIdp[]> {
    return (await this.d.idps.list()).filter((i) => i.enabled).map((i) => ({
      alias: i.alias, display_name: i.display_name ?? i.alias, issuer: i.issuer,
      login_path: `${IDP_PREFIX}/broker/${encodeURIComponent(i.alias)}/login`,
    }));
  }

  /** Every upstream IdP, sanitised (admin). */
  async adminList(): Promise<UpstreamIdpView[]> { return (await this.d.idps.list()).map((i) => this.view(i)); }

  /** One upstream IdP, sanitised. @throws `idp_not_found`. */
  async adminGet(alias: string): Promise<UpstreamIdpView> { return this.view(await this.must(alias)); }

  /** Register an upstream IdP. @throws `idp_exists`, `issuer_invalid`, `url_not_allowed`. */
  async create(body: CreateUpstreamIdp): Promise<UpstreamIdpView> {
    const issuer = body.issuer.trim();
    await this.d.oidc.checkIssuer(issuer);
    const now = new Date(this.d.clock()).toISOString();
    const rec: UpstreamIdpRecord = {
      alias: body.alias, issuer, client_id: body.client_id, client_secret_enc: this.d.sealer.seal(body.client_secret, body.alias),
      scopes: withOpenid(body.scopes), claims: { ...body.claims }, display_name: body.display_name ?? null, enabled: true,
      created_at: now, updated_at: now,
    };
    if (!await this.d.idps.insert(rec)) throw new DomainError('idp_exists', `an upstream IdP with alias "${body.alias}" exists`);
    return this.view(rec);
  }

  /** Replace an upstream IdP's settings (the secret only when given). @throws `idp_not_found`, `issuer_invalid`, `url_not_allowed`. */
  async update(alias: string, body: UpdateUpstreamIdp): Promise<UpstreamIdpView> {
    const issuer = body.issuer.trim();
    await this.d.oidc.checkIssuer(issuer);
    const cur = await this.must(alias);
    const rec: UpstreamIdpRecord = {
      ...cur, issuer, client_id: body.client_id, scopes: withOpenid(body.scopes), claims: { ...body.claims },
      display_name: body.display_name ?? cur.display_name, enabled: body.enabled ?? cur.enabled,
      client_secret_enc: body.client_secret !== undefined ? this.d.sealer.seal(body.client_secret, alias) : cur.client_secret_enc,
      updated_at: new Date(this.d.clock()).toISOString(),
    };
    await this.d.idps.save(rec);
    return this.view(rec);
  }

  /** Remove an upstream IdP (links stay, so re-adding the same issuer finds the same accounts). @throws `idp_not_found`. */
  async remove(alias: string): Promise<void> {
    if (!await this.d.idps.remove(alias)) throw new DomainError('idp_not_found', `no upstream IdP "${alias}"`);
  }

  /** Fetch and check the upstream's discovery document. @throws `idp_not_found`. */
  async test(alias: string): Promise<UpstreamIdpTestResult> {
    const rec = await this.must(alias);
    try {
      const m = await this.d.oidc.metadata(this.settings(rec));
      return { ok: true, issuer: m.issuer, authorization_endpoint: m.authorization_endpoint, token_endpoint: m.token_endpoint };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return { ok: false, issuer: rec.issuer, code: err.code, error: err.message };
    }
  }

  async start(alias: string, interactionUid: string): Promise<string> {
    const rec = await this.d.idps.get(alias);
    if (!rec || !rec.enabled) throw new DomainError('idp_not_found', `no upstream IdP "${alias}"`);
    const checks = this.d.oidc.newChecks();
    const url = await this.d.oidc.authorizationUrl(this.settings(rec), { ...checks, redirect_uri: this.redirectUri(alias), scope: rec.scopes.join(' ') });
    await this.d.states.insert({ ...checks, interaction_uid: interactionUid, alias, expires_at: this.d.clock() + BROKER_STATE_TTL_MS, used_at: null });
    return url;
  }

  async finish(alias: string, callbackUrl: URL): Promise<{ interactionUid: string; identity: BrokeredIdentity }> {
    const state = callbackUrl.searchParams.get('state');
    const now = this.d.clock();
    const pending = state ? await this.d.states.take(state, now) : null;
    if (!pending || pending.alias !== alias || pending.expires_at <= now) {
      throw new DomainError('state_invalid', 'this sign-in link is invalid, used or expired; start the sign-in again');
    }
    const rec = await this.d.idps.get(alias);
    if (!rec || !rec.enabled) throw new DomainError('idp_not_found', `no upstream IdP "${alias}"`);
    // The redirect URI is the public one, whatever host the callback reached this service on.
    const url = new URL(this.redirectUri(alias));
    url.search = callbackUrl.search;
    const claims = await this.d.oidc.redeem(this.settings(rec), url, pending);
    const identity = await this.d.tx(() => this.link(rec, claims));
    return { interactionUid: pending.interaction_uid, identity };
  }

  /** The mapped groups of a brokered account at its last sign-in (the `groups` claim), or []. */
  async groupsOf(userId: string): Promise<string[]> { return (await this.d.links.byUser(userId))[0]?.groups ?? []; }

  /** The upstream identity an account last signed in with, or null (for the token claims). */
  async upstreamOf(userId: string): Promise<Omit<BrokeredIdentity, 'accountId'> | null> {
    const l = (await this.d.links.byUser(userId))[0];
    if (!l) return null;
    return { upstream_iss: l.upstream_iss, upstream_sub: l.upstream_sub, ...(l.preferred_username ? { upstream_preferred_username: l.preferred_username } : {}) };
  }

  /** Delete pending states that expired before `now` (unix ms). */
  async prune(now: number): Promise<void> { await this.d.states.prune(now); }

  private async link(rec: UpstreamIdpRecord, claims: Record<string, unknown>): Promise<BrokeredIdentity> {
    const iss = str(claims['iss']) ?? rec.issuer;
    const sub = str(claims['sub']);
    if (!sub) throw new DomainError('upstream_rejected', 'the upstream identity has no subject');
    const preferred = str(claims['preferred_username']);
    const groups = groupsOf(claims[rec.claims.groups]);
    const roles = directoryRoles(groups, this.d.groupRoleMap);
    const nowIso = new Date(this.d.clock()).toISOString();
    const existing = await this.d.links.get(iss, sub);
    let user: UserRecord | null = existing ? await this.d.users.byId(existing.user_id) : null;
    const email = str(claims[rec.claims.email])?.toLowerCase() ?? null;
    const name = (str(claims[rec.claims.name]) ?? preferred ?? email ?? sub).slice(0, LIMITS.displayNameMax);
    if (user) {
      if (user.disabled) throw new DomainError('account_disabled', 'this account is disabled');
      user = { ...user, display_name: name, roles, updated_at: nowIso };
      await this.d.users.save(user);
    } else {
      if (!email || email.length > LIMITS.emailMax || !/^[^\s@]+@[^\s@]+$/.test(email)) {
        throw new DomainError('upstream_email_missing', `the company sign-in gave no email address (claim "${rec.claims.email}"); ask its administrator to release it`);
      }
      if (await this.d.users.byEmail(email)) {
        throw new DomainError('upstream_account_conflict', 'an account with this email already exists here; sign in with it, or ask an administrator');
      }
      user = { id: newId(), email, display_name: name, password_hash: null, roles, disabled: false, created_at: nowIso, updated_at: nowIso };
      if (!await this.d.users.insert(user)) throw new DomainError('upstream_account_conflict', 'the account was created concurrently; sign in again');
    }
    await this.d.links.put({
      upstream_iss: iss, upstream_sub: sub, user_id: user.id, alias: rec.alias, preferred_username: preferred, groups,
      created_at: existing?.created_at ?? nowIso, last_login_at: nowIso,
    });
    return { accountId: user.id, upstream_iss: iss, upstream_sub: sub, ...(preferred ? { upstream_preferred_username: preferred } : {}) };
  }

  private async must(alias: string): Promise<UpstreamIdpRecord> {
    const rec = await this.d.idps.get(alias);
    if (!rec) throw new DomainError('idp_not_found', `no upstream IdP "${alias}"`);
    return rec;
  }

  private settings(rec: UpstreamIdpRecord): UpstreamClientSettings {
    return { issuer: rec.issuer, client_id: rec.client_id, client_secret: this.d.sealer.open(rec.client_secret_enc, rec.alias) };
  }

  private view(i: UpstreamIdpRecord): UpstreamIdpView {
    return {
      alias: i.alias, issuer: i.issuer, client_id: i.client_id, scopes: [...i.scopes], claims: { ...i.claims },
      display_name: i.display_name ?? i.alias, enabled: i.enabled, redirect_uri: this.redirectUri(i.alias), client_secret_set: true,
      created_at: i.created_at, updated_at: i.updated_at,
    };
  }
}
