/**
 * First start (DESIGN.md "Identity" > First start).
 *
 * - With a bootstrap admin (SVC_BOOTSTRAP_ADMIN_EMAIL + _PASSWORD): create that admin (roles
 *   `admin`, `user`) when absent; an existing account is left alone (its password is not overwritten).
 * - Otherwise, with no accounts at all: create the password-less installer admin `admin@localhost`
 *   and issue an installer handoff.
 * - A pending handoff whose file has vanished (crash between database and file, or a deleted file)
 *   is replaced by a fresh one, so the installer admin is never locked out.
 */
import { monotonicFactory } from 'ulid';
import { INSTALLER_ADMIN_EMAIL } from '../contracts.js';
import type { HandoffService } from './handoff.js';
import type { PasswordHasher } from './passwords.js';
import type { Clock, HandoffFile, HandoffStore, Transactor, UserRecord, UserStore } from './ports.js';

/** Dependencies of `firstStart`. */
export interface BootstrapDeps {
  users: UserStore;
  handoffs: HandoffStore;
  file: HandoffFile;
  handoff: HandoffService;
  hasher: PasswordHasher;
  tx: Transactor;
  clock: Clock;
  /** Bootstrap admin from configuration, or null. */
  bootstrapAdmin: { email: string; password: string } | null;
}

/** What `firstStart` did (ids only; never a secret). */
export type BootstrapOutcome =
  | { kind: 'bootstrap_admin_created'; user_id: string }
  | { kind: 'installer_handoff_issued'; user_id: string }
  | { kind: 'none' };

const newId = monotonicFactory();

/** Run the first-start rules once at service start. */
export async function firstStart(d: BootstrapDeps): Promise<BootstrapOutcome> {
  const now = new Date(d.clock()).toISOString();
  const account = (email: string, password_hash: string | null): UserRecord => ({
    id: newId(), email, display_name: 'Administrator', password_hash, roles: ['admin', 'user'], disabled: false, created_at: now, updated_at: now,
  });
  if (d.bootstrapAdmin) {
    const email = d.bootstrapAdmin.email.trim().toLowerCase();
    if (await d.users.byEmail(email)) return { kind: 'none' };
    const user = account(email, await d.hasher.hash(d.bootstrapAdmin.password));
    if (!await d.users.insert(user)) return { kind: 'none' };
    return { kind: 'bootstrap_admin_created', user_id: user.id };
  }
  if (await d.users.count() === 0) {
    const user = account(INSTALLER_ADMIN_EMAIL, null);
    // One transaction: a failed file write leaves no password-less admin without a handoff.
    await d.tx(async () => {
      await d.users.insert(user);
      await d.handoff.issue(user.id);
    });
    return { kind: 'installer_handoff_issued', user_id: user.id };
  }
  const pending = await d.handoffs.pending();
  if (pending && !d.file.exists()) {
    await d.handoff.issue(pending.user_id);
    return { kind: 'installer_handoff_issued', user_id: pending.user_id };
  }
  return { kind: 'none' };
}
