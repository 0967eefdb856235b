/**
 * The auth service's SQLite store (`<dbDir>/auth.sqlite`, migrations `migrations/auth/`).
 * The only code of the service that opens the database.
 */
import { openDb, type Db } from '../../../shared/db/open.js';
import type { LoginFailureStore, RefreshTokenStore, Transactor, UserStore, HandoffStore } from '../domain/ports.js';
import { SqliteUserStore } from './users.js';
import { SqliteRefreshTokenStore } from './refresh-tokens.js';
import { SqliteLoginFailureStore } from './login-failures.js';
import { SqliteHandoffStore } from './handoffs.js';

/** All tables of the auth store, plus a transaction helper. */
export class AuthStore {
  readonly users: UserStore;
  readonly refresh: RefreshTokenStore;
  readonly failures: LoginFailureStore;
  readonly handoffs: HandoffStore;
  /** Runs a synchronous function in one SQLite transaction (nested calls become savepoints). */
  readonly tx: Transactor;

  private constructor(private readonly db: Db) {
    this.users = new SqliteUserStore(db);
    this.refresh = new SqliteRefreshTokenStore(db);
    this.failures = new SqliteLoginFailureStore(db);
    this.handoffs = new SqliteHandoffStore(db);
    this.tx = <T>(fn: () => T): T => db.transaction(fn)();
  }

  /**
   * Open (create, migrate) the store.
   * @param opts `dbDir` (or `':memory:'`) and the repository's `migrations` folder.
   */
  static open(opts: { dbDir: string; migrationsDir: string }): AuthStore {
    return new AuthStore(openDb({ dbDir: opts.dbDir, migrationsDir: opts.migrationsDir, store: 'auth', vec: false }));
  }

  /** Close the database (idempotent). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
