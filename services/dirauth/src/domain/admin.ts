/**
 * Admin → Identity, the directory connection (issue 15 item 5): the settings as an admin may see
 * them (never the bind password) and a test bind with the search account that always answers (the
 * directory's deadline bounds it) with `{ok, latency_ms, code?, error?}`.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { DirauthSettingsView, DirauthTestResult, LdapSettings } from '../contracts.js';
import { DirectoryError, type Directory } from './ports.js';

/** Dependencies of `DirectoryAdmin`. */
export interface DirectoryAdminDeps {
  /** Null when DIRAUTH_LDAP_URL is unset. */
  settings: LdapSettings | null;
  /** Null when DIRAUTH_LDAP_URL is unset (or a test double). */
  directory: Directory | null;
  /** Monotonic milliseconds (e.g. `performance.now`). */
  now: () => number;
  log: { warn(obj: object, msg: string): void };
}

/** The admin side of the directory connection. */
export class DirectoryAdmin {
  constructor(private readonly deps: DirectoryAdminDeps) {}

  /** The sanitised settings. */
  view(): DirauthSettingsView {
    const s = this.deps.settings;
    if (!s) {
      return {
        configured: false, url: null, bind_dn: null, bind_password_set: false, user_base: null, user_filter: null,
        group_base: null, ca_file: null, start_tls: false, timeout_ms: null,
      };
    }
    return {
      configured: this.deps.directory !== null, url: s.url, bind_dn: s.bindDn, bind_password_set: s.bindPassword.length > 0,
      user_base: s.userBase, user_filter: s.userFilter, group_base: s.groupBase, ca_file: s.caFile, start_tls: s.startTls,
      timeout_ms: s.timeoutMs,
    };
  }

  /**
   * Bind as the search account and read the user base.
   * @returns ok with the latency, or not ok with `code` `bind_failed` / `unavailable` and a message.
   * @throws DomainError `directory_not_configured` (404) when DIRAUTH_LDAP_URL is unset.
   */
  async test(): Promise<DirauthTestResult> {
    const { directory, now } = this.deps;
    if (!directory) throw new DomainError('directory_not_configured', 'no corporate directory is configured (DIRAUTH_LDAP_URL)');
    const started = now();
    const latency = (): number => Math.round((now() - started) * 10) / 10;
    try {
      await directory.testBind();
      return { ok: true, latency_ms: latency() };
    } catch (err) {
      const refused = err instanceof DirectoryError && err.kind === 'invalid_credentials';
      const message = err instanceof Error ? err.message : String(err);
      this.deps.log.warn({ err: message }, 'directory test bind failed');
      return { ok: false, latency_ms: latency(), code: refused ? 'bind_failed' : 'unavailable', error: message };
    }
  }
}
