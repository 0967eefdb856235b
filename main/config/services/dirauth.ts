/**
 * Environment settings of the dirauth service (issue 15 item 3), merged into its config slice by
 * main/config. It returns `DirauthSettings` (services/dirauth/src/contracts.ts); the defaults live
 * here only.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | DIRAUTH_LDAP_URL | (unset: directory sign-in off) | `ldap://host:port` or `ldaps://host:port` |
 * | DIRAUTH_LDAP_BIND_DN | (anonymous search) | DN of the search account |
 * | DIRAUTH_LDAP_BIND_PASSWORD (or _FILE) | - | its password; required with BIND_DN |
 * | DIRAUTH_LDAP_USER_BASE | - | base DN of the user search (subtree); required with the URL |
 * | DIRAUTH_LDAP_USER_FILTER | `(|(uid={username})(mail={username}))` | `{username}` is RFC 4515-escaped |
 * | DIRAUTH_LDAP_GROUP_BASE | (unset: `memberOf` only) | base DN of groups listing users by `member` |
 * | DIRAUTH_LDAP_CA_FILE | (system roots) | PEM CA for LDAPS/StartTLS |
 * | DIRAUTH_LDAP_STARTTLS | false | upgrade `ldap://` with StartTLS before binding (production refuses plain `ldap://` to a non-loopback host without it) |
 * | DIRAUTH_LDAP_TIMEOUT_MS | 5000 | connect and per-operation timeout (a login waits at most 3x) |
 */
import { existsSync } from 'node:fs';
import { DEFAULT_USER_FILTER, type DirauthSettings } from '../../../services/dirauth/src/contracts.js';
import { bool, ConfigError, int, secret, str } from '../env.js';
import type { ExtrasContext, Env } from './types.js';

/**
 * Read the dirauth settings from `env`.
 * @throws ConfigError naming the variable to set.
 */
export function dirauthSettings(env: Env, ctx: ExtrasContext): DirauthSettings {
  const url = str(env, 'DIRAUTH_LDAP_URL');
  if (!url) return { ldap: null };
  let u: URL;
  try { u = new URL(url); } catch { throw new ConfigError(`DIRAUTH_LDAP_URL must be ldap://host:port or ldaps://host:port, got "${url}"`); }
  if (u.protocol !== 'ldap:' && u.protocol !== 'ldaps:') throw new ConfigError('DIRAUTH_LDAP_URL must start with ldap:// or ldaps://');
  const startTls = bool(env, 'DIRAUTH_LDAP_STARTTLS', false);
  if (startTls && u.protocol === 'ldaps:') throw new ConfigError('DIRAUTH_LDAP_STARTTLS applies to ldap:// URLs; ldaps:// is already TLS');
  // Users' passwords cross this connection: in production only over TLS, unless the directory is on this machine.
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  if (ctx.production && u.protocol === 'ldap:' && !startTls && !loopback) {
    throw new ConfigError('DIRAUTH_LDAP_URL is plain ldap:// in production: use ldaps:// or set DIRAUTH_LDAP_STARTTLS=true, so passwords never cross the network in clear');
  }
  const userBase = str(env, 'DIRAUTH_LDAP_USER_BASE');
  if (!userBase) throw new ConfigError('DIRAUTH_LDAP_URL is set but DIRAUTH_LDAP_USER_BASE is empty; set it to the base DN of the users, e.g. ou=people,dc=example,dc=com');
  const userFilter = str(env, 'DIRAUTH_LDAP_USER_FILTER') || DEFAULT_USER_FILTER;
  if (!userFilter.includes('{username}') || !userFilter.startsWith('(') || !userFilter.endsWith(')')) {
    throw new ConfigError('DIRAUTH_LDAP_USER_FILTER must be a parenthesised LDAP filter containing {username}, e.g. (uid={username})');
  }
  const bindDn = str(env, 'DIRAUTH_LDAP_BIND_DN') || null;
  const bindPassword = secret(env, 'DIRAUTH_LDAP_BIND_PASSWORD') ?? '';
  if (bindDn && !bindPassword) throw new ConfigError('DIRAUTH_LDAP_BIND_DN is set but DIRAUTH_LDAP_BIND_PASSWORD (or DIRAUTH_LDAP_BIND_PASSWORD_FILE) is empty');
  const caFile = str(env, 'DIRAUTH_LDAP_CA_FILE') || null;
  if (caFile && !existsSync(caFile)) throw new ConfigError(`DIRAUTH_LDAP_CA_FILE points at ${caFile}, which does not exist`);
  return {
    ldap: {
      url, bindDn, bindPassword, userBase, userFilter,
      groupBase: str(env, 'DIRAUTH_LDAP_GROUP_BASE') || null,
      caFile, startTls,
      timeoutMs: int(env, 'DIRAUTH_LDAP_TIMEOUT_MS', 5000, 100, 120_000),
    },
  };
}
