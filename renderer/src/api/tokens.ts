/**
 * The token keeper: holds the access token in memory, refreshes it before it expires (at 80% of its
 * lifetime, never later than 30 s before), and keeps the rotating refresh token where it survives a
 * reload: the OS keychain through the preload bridge in the desktop app, `sessionStorage` in a
 * browser tab (gone when the tab closes; never `localStorage`). Refresh tokens are single use
 * (auth service), so one refresh runs at a time.
 *
 * Two issuers (issue 15 item 1): tokens of the embedded IdP (authorization code + PKCE) rotate at
 * the IdP's token endpoint (refresh_token grant); tokens of the auth service's own routes (installer
 * handoff, the password form when no IdP is served) at `/v1/auth/refresh`. The stored value says
 * which: an IdP refresh token is kept as `idp:<token>`.
 */
import type { TokenResponse } from './types';
import { desktop } from '../desktop';
import { endSession, refreshAtIdp, type IdpTokens } from '../auth/oidc';

const STORAGE_KEY = 'svc.refresh_token';
const IDP_MARK = 'idp:';

/** Who issued the tokens: the embedded IdP, or the auth service's own routes. */
export type TokenIssuer = 'idp' | 'auth';

/** What the keeper tells the app. */
export type TokenEvent = { kind: 'signedIn' } | { kind: 'signedOut'; reason: string | null };

class TokenKeeper {
  private access: string | null = null;
  /** Epoch ms when the access token expires. */
  private expiresAt = 0;
  private refreshToken: string | null = null;
  private issuer: TokenIssuer = 'auth';
  private idToken: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inflight: Promise<boolean> | null = null;
  private readonly listeners = new Set<(e: TokenEvent) => void>();

  on(fn: (e: TokenEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: TokenEvent): void { for (const fn of this.listeners) fn(e); }

  /** Adopt a token response (IdP sign-in or refresh, password login, installer handoff). */
  async accept(t: TokenResponse | IdpTokens, issuer: TokenIssuer = 'auth'): Promise<void> {
    this.access = t.access_token;
    this.expiresAt = Date.now() + t.expires_in * 1000;
    this.refreshToken = t.refresh_token || null;
    this.issuer = issuer;
    if ('id_token' in t && t.id_token) this.idToken = t.id_token;
    await this.persist(this.refreshToken === null ? null : `${issuer === 'idp' ? IDP_MARK : ''}${this.refreshToken}`);
    this.schedule(t.expires_in);
  }

  private schedule(expiresIn: number): void {
    if (this.timer) clearTimeout(this.timer);
    const ms = Math.max(1000, Math.min(expiresIn * 800, (expiresIn - 30) * 1000));
    this.timer = setTimeout(() => { void this.refresh(); }, ms);
  }

  private async persist(value: string | null): Promise<void> {
    const d = desktop();
    if (d) {
      if (value) await d.keychain.set('refresh_token', value); else await d.keychain.delete('refresh_token');
      return;
    }
    try {
      if (value) sessionStorage.setItem(STORAGE_KEY, value); else sessionStorage.removeItem(STORAGE_KEY);
    } catch { /* storage disabled: the session lasts as long as the page */ }
  }

  private async stored(): Promise<string | null> {
    const d = desktop();
    if (d) return d.keychain.get('refresh_token');
    try { return sessionStorage.getItem(STORAGE_KEY); } catch { return null; }
  }

  /** True when a session can be resumed from a stored refresh token. */
  async resume(): Promise<boolean> {
    const kept = await this.stored();
    this.issuer = kept?.startsWith(IDP_MARK) ? 'idp' : 'auth';
    this.refreshToken = kept?.startsWith(IDP_MARK) ? kept.slice(IDP_MARK.length) : kept;
    if (!this.refreshToken) return false;
    return this.refresh();
  }

  /** The access token, refreshed first when it expires within 10 s. */
  async accessToken(): Promise<string | null> {
    if (this.access && Date.now() > this.expiresAt - 10_000) await this.refresh();
    return this.access;
  }

  /** Rotate the tokens; false (and signed out) when the refresh token is refused. */
  refresh(): Promise<boolean> {
    if (this.inflight) return this.inflight;
    const rt = this.refreshToken;
    if (!rt) return Promise.resolve(false);
    this.inflight = (async () => {
      try {
        if (this.issuer === 'idp') {
          const next = await refreshAtIdp(rt);
          if (!next) { this.signedOut('Your session ended. Sign in again.'); return false; }
          await this.accept(next, 'idp');
          return true;
        }
        const res = await fetch('/v1/auth/refresh', {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: rt }),
        });
        if (res.status === 401 || res.status === 403) {
          this.signedOut('Your session ended. Sign in again.');
          return false;
        }
        if (!res.ok) return false;
        await this.accept(await res.json() as TokenResponse);
        return true;
      } catch {
        return false;
      } finally {
        this.inflight = null;
      }
    })();
    return this.inflight;
  }

  /** Forget every token and tell the app (401 after a failed refresh, or the user signed out). */
  signedOut(reason: string | null): void {
    const had = this.access !== null || this.refreshToken !== null;
    this.access = null;
    this.refreshToken = null;
    this.idToken = null;
    this.expiresAt = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    void this.persist(null);
    if (had) this.emit({ kind: 'signedOut', reason });
  }

  signedIn(): void { this.emit({ kind: 'signedIn' }); }

  /**
   * The user signs out: tokens forgotten here; for IdP tokens the refresh token is revoked and the
   * IdP session ended too (the browser leaves for the end-session endpoint and comes back to `/`).
   */
  async signOut(): Promise<void> {
    const idp = this.issuer === 'idp' && this.refreshToken !== null;
    const rt = this.refreshToken;
    const idToken = this.idToken;
    if (idp) await endSession(rt, idToken);
    this.signedOut(null);
  }

  /** Decoded claims of the access token (display only; the gateway verifies). */
  claims(): Record<string, unknown> | null {
    const part = this.access?.split('.')[1];
    if (!part) return null;
    try {
      return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    } catch { return null; }
  }
}

/** The app's one token keeper. */
export const tokens = new TokenKeeper();
