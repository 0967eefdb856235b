/**
 * Local account administration (DESIGN.md "Request bodies the spec leaves open": POST /v1/admin/users;
 * lists `{items, next_cursor?}`).
 *
 * Routes validate shapes with JSON schemas; this module re-checks what matters for safety (email
 * form, password length, roles: only `ACCOUNT_ROLES`, 400 `role_not_assignable` / `role_unknown`,
 * issue 11 item 1), normalises (lower-cased email, trimmed display name, unique
 * roles) and enforces the rules: unique email (409 `user_exists`), an admin cannot disable themself
 * or drop their own admin role (409 `cannot_demote_self`), disabling or setting a password revokes
 * the user's refresh families.
 */
import { monotonicFactory } from 'ulid';
import { DomainError, invalidInput, notFoundError } from '../../../shared/kit/domain-error.js';
import type { Principal } from '../../../shared/identity/principal.js';
import {
  EMAIL_PATTERN, LIMITS, type CreateUserInput, type ProfileView, type UpdateUserInput, type UserPage, type UserView,
} from '../contracts.js';
import type { PasswordHasher } from './passwords.js';
import type { Clock, UserRecord, UserStore } from './ports.js';
import { assignableRoles } from './roles.js';
import { accountDisabled, type TokenService } from './tokens.js';

/** Dependencies of `UserService`. */
export interface UserDeps {
  users: UserStore;
  hasher: PasswordHasher;
  tokens: TokenService;
  clock: Clock;
}

const newId = monotonicFactory();

const EMAIL_RE = new RegExp(EMAIL_PATTERN);

/** The admin view of an account (never the hash). */
export function toUserView(u: UserRecord): UserView {
  return {
    id: u.id, email: u.email, display_name: u.display_name, roles: [...u.roles], disabled: u.disabled,
    has_password: u.password_hash !== null, created_at: u.created_at, updated_at: u.updated_at,
  };
}

/** Normalise an email (lower-case). @throws DomainError `invalid_request` on a malformed one. */
export function normaliseEmail(email: string, field = 'body.email'): string {
  const e = email.toLowerCase();
  if (e.length > LIMITS.emailMax || !EMAIL_RE.test(e)) throw invalidInput('email is not a valid address', field);
  return e;
}

function normaliseName(name: string): string {
  const n = name.trim();
  if (n.length === 0 || n.length > LIMITS.displayNameMax) throw invalidInput(`display_name must be 1 to ${LIMITS.displayNameMax} characters`, 'body.display_name');
  return n;
}

function checkPassword(password: string): void {
  if (password.length < LIMITS.passwordMin || password.length > LIMITS.passwordMax) {
    throw invalidInput(`password must be ${LIMITS.passwordMin} to ${LIMITS.passwordMax} characters`, 'body.password');
  }
}

/** Creates, lists and updates local accounts. */
export class UserService {
  constructor(private readonly deps: UserDeps) {}

  /**
   * Create an account. Without `password` the account cannot log in by password.
   * @throws DomainError `invalid_request`, `role_not_assignable`, `role_unknown`, `user_exists`.
   */
  async create(input: CreateUserInput): Promise<UserView> {
    const email = normaliseEmail(input.email);
    const display_name = normaliseName(input.display_name);
    const roles: string[] = assignableRoles(input.roles ?? ['user']);
    if (input.password !== undefined) checkPassword(input.password);
    if (await this.deps.users.byEmail(email)) throw userExists();
    const now = new Date(this.deps.clock()).toISOString();
    const user: UserRecord = {
      id: newId(), email, display_name, roles, disabled: false, created_at: now, updated_at: now,
      password_hash: input.password === undefined ? null : await this.deps.hasher.hash(input.password),
    };
    if (!await this.deps.users.insert(user)) throw userExists();
    return toUserView(user);
  }

  /** A page of accounts ordered by id; `cursor` is the last id of the previous page. */
  async list(cursor: string | null, limit: number): Promise<UserPage> {
    const n = Math.min(Math.max(1, Math.floor(limit)), LIMITS.pageMax);
    const rows = await this.deps.users.list(cursor, n + 1);
    const page: UserPage = { items: rows.slice(0, n).map(toUserView) };
    if (rows.length > n) page.next_cursor = rows[n - 1]!.id;
    return page;
  }

  /** One account. @throws DomainError `not_found`. */
  async get(id: string): Promise<UserView> {
    return toUserView(await this.record(id));
  }

  /**
   * Apply `patch` to account `id` on behalf of admin `actorId`.
   * @throws DomainError `invalid_request`, `role_not_assignable`, `role_unknown`, `not_found`, `cannot_demote_self`.
   */
  async update(actorId: string, id: string, patch: UpdateUserInput): Promise<UserView> {
    if (patch.password !== undefined) checkPassword(patch.password);
    this.merge(actorId, await this.record(id), patch);
    const hash = patch.password === undefined ? undefined : await this.deps.hasher.hash(patch.password);
    // Re-read after the hash: merge into the latest row so a concurrent change is not lost.
    const current = await this.record(id);
    const next = this.merge(actorId, current, patch);
    if (hash !== undefined) next.password_hash = hash;
    await this.deps.users.save(next);
    if ((next.disabled && !current.disabled) || hash !== undefined) await this.deps.tokens.revokeUser(id);
    return toUserView(next);
  }

  private merge(actorId: string, current: UserRecord, patch: UpdateUserInput): UserRecord {
    const next: UserRecord = { ...current, updated_at: new Date(this.deps.clock()).toISOString() };
    if (patch.display_name !== undefined) next.display_name = normaliseName(patch.display_name);
    if (patch.roles !== undefined) next.roles = assignableRoles(patch.roles);
    if (patch.disabled !== undefined) next.disabled = patch.disabled;
    if (current.id === actorId && (next.disabled || (current.roles.includes('admin') && !next.roles.includes('admin')))) {
      throw new DomainError('cannot_demote_self', 'an admin cannot disable their own account or remove their own admin role');
    }
    return next;
  }

  /**
   * The caller's profile (GET /v1/user/me). A principal from `localIssuer` that names a stored
   * account gets the stored profile (`local: true`); any other principal is answered from its own
   * fields (`local: false`). `roles` are the principal's effective roles in both cases.
   * @throws DomainError `account_disabled` for a disabled local account.
   */
  async profile(p: Principal, localIssuer: string): Promise<ProfileView> {
    const u = p.local_iss === localIssuer ? await this.deps.users.byId(p.id) : null;
    if (u?.disabled) throw accountDisabled();
    return {
      id: p.id,
      email: u?.email ?? p.email ?? null,
      display_name: u?.display_name ?? p.display_name ?? null,
      roles: [...p.roles],
      tenant_id: p.tenant_id,
      auth_method: p.auth_method,
      disabled: false,
      created_at: u?.created_at ?? null,
      local: u !== null,
    };
  }

  private async record(id: string): Promise<UserRecord> {
    const u = await this.deps.users.byId(id);
    if (!u) throw notFoundError('user not found');
    return u;
  }
}

function userExists(): DomainError {
  return new DomainError('user_exists', 'a user with this email already exists');
}
