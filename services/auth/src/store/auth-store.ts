/**
 * The auth service's SQLite store (`<dbDir>/auth.sqlite`, migrations `migrations/auth/`).
 * The only code of the service that opens the database.
 */
import { openStore, type Store } from '../../../shared/db/store.js';
import type { HandoffStore, LoginFailureStore, LoginThrottleStore, RefreshTokenStore, RevocationStore, UserStore } from '../domain/ports.js';
import { SqliteHandoffStore } from './handoffs.js';
import { SqliteLoginFailureStore } from './login-failures.js';
import { SqliteLoginThrottleStore } from './login-throttle.js';
import { SqliteRefreshTokenStore } from './refresh-tokens.js';
import { SqliteRevocationStore } from './revocations.js';
import { SqliteUserStore } from './users.js';

/** All tables of the auth store, plus `tx`, `isOpen` and `close`. */
export type AuthStore = Store<{
  users: UserStore; refresh: RefreshTokenStore; failures: LoginFailureStore; throttle: LoginThrottleStore;
  revocations: RevocationStore; handoffs: HandoffStore;
}>;

/**
 * Open (create, migrate) the store.
 * @param opts `dbDir` (or `':memory:'`) and the repository's `migrations` folder.
 */
export function openAuthStore(opts: { dbDir: string; migrationsDir: string }): AuthStore {
  return openStore({ dbDir: opts.dbDir, migrationsDir: opts.migrationsDir, store: 'auth', vec: false }, (db) => ({
    users: new SqliteUserStore(db), refresh: new SqliteRefreshTokenStore(db),
    failures: new SqliteLoginFailureStore(db), throttle: new SqliteLoginThrottleStore(db),
    revocations: new SqliteRevocationStore(db), handoffs: new SqliteHandoffStore(db),
  }));
}
