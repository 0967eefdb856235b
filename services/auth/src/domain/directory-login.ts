/**
 * Directory sign-in through the auth service (spec "Mobile-push second factor" step 1: the password
 * is checked "falling back to the corporate verifier path through the auth service", which mints a
 * token with issuer `{public_url}/auth`; issue 15 item 3).
 *
 * When a login's username is not a local account with a password, `LoginService` asks dirauth (the
 * `DirectoryPort`). A verified directory user gets a local account record keyed by their directory
 * `mail`: display name from the directory, no password hash (it is never stored), roles `user` plus
 * those their groups map to through SVC_GROUP_ROLE_MAP, and a `directory_accounts` row (DN, uid,
 * groups) that marks the account as the directory's and gives its tokens their `groups` claim. The directory owns these accounts: the
 * group-mapped roles are recomputed at every directory sign-in, so leaving a group drops its role
 * at the next sign-in (an admin disabling the account still wins). An account that is not the
 * directory's (no `directory_accounts` row: a local password account, or a password-less one made
 * another way) is never signed into through the directory (409 `directory_account_conflict`): a
 * directory entry must not take over a local account by sharing its email.
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import { monotonicFactory } from 'ulid';
import { accountRoles } from '../../../shared/identity/principal-types.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { LIMITS } from '../contracts.js';
import type { UserRecord, UserStore } from './ports.js';

/** A directory user as dirauth verified them. */
export interface DirectoryUser {
  /** The entry's DN. */
  dn: string;
  username: string;
  /** Lower-cased `mail`, or null. */
  email: string | null;
  name: string;
  groups: string[];
}

/** What the directory answered (dirauth's client implements this port). */
export type DirectoryAnswer =
  | { kind: 'ok'; identity: DirectoryUser }
  | { kind: 'invalid' }
  | { kind: 'not_configured' }
  | { kind: 'unavailable'; detail: string };

/** The corporate directory, through dirauth. Must not throw. */
export interface DirectoryPort {
  verify(username: string, password: string): Promise<DirectoryAnswer>;
}

/** The directory side of a provisioned account (`directory_accounts`). */
export interface DirectoryAccountRecord {
  user_id: string;
  dn: string;
  /** uid. */
  username: string;
  /** Group names at the last sign-in. */
  groups: string[];
  /** RFC 3339 UTC of the last sign-in. */
  synced_at: string;
}

/** Accounts provisioned from the directory. */
export interface DirectoryAccountStore {
  /** Insert or replace the row of `rec.user_id`. */
  put(rec: DirectoryAccountRecord): Awaitable<void>;
  get(userId: string): Awaitable<DirectoryAccountRecord | null>;
}

const newId = monotonicFactory();

/**
 * The account roles of a directory user: `user` plus every role `groupRoleMap` gives one of
 * `groups`, kept within `ACCOUNT_ROLES` (unknown names in the map are ignored).
 */
export function directoryRoles(groups: readonly string[], groupRoleMap: Readonly<Record<string, readonly string[]>>): string[] {
  const roles = ['user'];
  for (const g of groups) for (const r of groupRoleMap[g] ?? []) roles.push(r);
  return accountRoles(roles);
}

/**
 * Create or refresh the local record of a verified directory user (call inside a transaction):
 * the account row and its `directory_accounts` row (DN, uid, groups for the `groups` claim).
 * @param now RFC 3339 UTC.
 * @throws DomainError `directory_email_missing` (the entry has no `mail`),
 *   `directory_account_conflict` (an account that is not the directory's holds that email).
 */
export async function provisionDirectoryAccount(
  users: UserStore, accounts: DirectoryAccountStore, who: DirectoryUser, groupRoleMap: Readonly<Record<string, readonly string[]>>, now: string,
): Promise<UserRecord> {
  if (!who.email) throw new DomainError('directory_email_missing', 'your directory entry has no email address; ask the directory administrator to set it');
  const roles = directoryRoles(who.groups, groupRoleMap);
  const name = who.name.slice(0, LIMITS.displayNameMax);
  const existing = await users.byEmail(who.email);
  let user: UserRecord;
  if (existing) {
    if (!await accounts.get(existing.id)) throw new DomainError('directory_account_conflict', 'a local account already uses this email; sign in with its local password');
    user = { ...existing, display_name: name, roles, updated_at: now };
    await users.save(user);
  } else {
    user = { id: newId(), email: who.email, display_name: name, password_hash: null, roles, disabled: false, created_at: now, updated_at: now };
    if (!await users.insert(user)) throw new DomainError('directory_account_conflict', 'the account was created concurrently; sign in again');
  }
  await accounts.put({ user_id: user.id, dn: who.dn, username: who.username, groups: [...who.groups], synced_at: now });
  return user;
}
