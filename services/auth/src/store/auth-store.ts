/**
 * The auth service's SQLite store (`<dbDir>/auth.sqlite`, migrations `migrations/auth/`), and the
 * facade type both engines satisfy (`AuthStore`; PostgreSQL: `store/pg/index.ts`, issue 21 item 1).
 * With the PostgreSQL one this is the only code of the service that opens a database.
 */
import type { AsyncStoreHandle } from '../../../shared/db/async-store.js';
import { openStore, type Store } from '../../../shared/db/store.js';
import type { IdpModelStore } from '../idp/model-store.js';
import type { HandoffStore, LoginFailureStore, LoginThrottleStore, RefreshTokenStore, RevocationStore, UserStore } from '../domain/ports.js';
import type {
  ChallengeStore, DeviceStore, EnrollmentStore, PolicyStore, ProofJtiStore, RecoveryCodeStore,
} from '../domain/device-ports.js';
import { SqliteDeviceStore } from './devices.js';
import { SqliteDirectoryAccountStore } from './directory-accounts.js';
import { SqliteSignInStore } from './sign-ins.js';
import type { SignInStore } from '../domain/sign-in-log.js';
import { SqliteIdpModelStore } from './idp-models.js';
import type { DirectoryAccountStore } from '../domain/directory-login.js';
import { SqliteBrokerStateStore, SqliteUpstreamIdpStore, SqliteUpstreamLinkStore } from './upstream-sso.js';
import type { BrokerStateStore, UpstreamIdpStore, UpstreamLinkStore } from '../domain/upstream-broker.js';
import { SqliteEnrollmentStore } from './enrollments.js';
import { SqliteChallengeStore } from './login-challenges.js';
import { SqliteProofJtiStore } from './proof-jtis.js';
import { SqliteRecoveryCodeStore } from './recovery-codes.js';
import { SqlitePolicyStore } from './second-factor-policy.js';
import { SqliteHandoffStore } from './handoffs.js';
import { SqliteLoginFailureStore } from './login-failures.js';
import { SqliteLoginThrottleStore } from './login-throttle.js';
import { SqliteRefreshTokenStore } from './refresh-tokens.js';
import { SqliteRevocationStore } from './revocations.js';
import { SqliteUserStore } from './users.js';

/** The table groups of the auth store (ports of `domain/` and `idp/model-store.ts`). */
export interface AuthTables {
  users: UserStore; refresh: RefreshTokenStore; failures: LoginFailureStore; throttle: LoginThrottleStore;
  revocations: RevocationStore; handoffs: HandoffStore;
  /** Issue 14: the second factor's tables. */
  devices: DeviceStore; enrollments: EnrollmentStore; challenges: ChallengeStore; recoveryCodes: RecoveryCodeStore;
  proofJtis: ProofJtiStore; policy: PolicyStore;
  /** Issue 15 item 3: accounts provisioned from the corporate directory. */
  directoryAccounts: DirectoryAccountStore;
  /** Issue 15 item 2: upstream SSO (IdPs, identity links, pending broker states). */
  upstreamIdps: UpstreamIdpStore; upstreamLinks: UpstreamLinkStore; brokerStates: BrokerStateStore;
  /** Issue 15 item 5: who signed in how. */
  signIns: SignInStore;
  /** Issue 15 item 1: the embedded IdP's models (oidc-provider adapter). */
  idpModels: IdpModelStore;
}

/** The auth store on either engine: its table groups plus the engine-neutral handle (`txAsync`, `ready`, `close`). */
export type AuthStore = Readonly<AuthTables> & AsyncStoreHandle;

/** The SQLite facade: the concrete table groups (synchronous answers) and the synchronous `tx` too (tests use both). */
export type SqliteAuthStore = Store<{
  users: SqliteUserStore; refresh: SqliteRefreshTokenStore; failures: SqliteLoginFailureStore; throttle: SqliteLoginThrottleStore;
  revocations: SqliteRevocationStore; handoffs: SqliteHandoffStore;
  devices: SqliteDeviceStore; enrollments: SqliteEnrollmentStore; challenges: SqliteChallengeStore; recoveryCodes: SqliteRecoveryCodeStore;
  proofJtis: SqliteProofJtiStore; policy: SqlitePolicyStore; directoryAccounts: SqliteDirectoryAccountStore;
  upstreamIdps: SqliteUpstreamIdpStore; upstreamLinks: SqliteUpstreamLinkStore; brokerStates: SqliteBrokerStateStore;
  signIns: SqliteSignInStore; idpModels: SqliteIdpModelStore;
}>;

/**
 * Open (create, migrate) the store.
 * @param opts `dbDir` (or `':memory:'`) and the repository's `migrations` folder.
 */
export function openAuthStore(opts: { dbDir: string; migrationsDir: string }): SqliteAuthStore {
  return openStore({ dbDir: opts.dbDir, migrationsDir: opts.migrationsDir, store: 'auth', vec: false }, (db) => ({
    users: new SqliteUserStore(db), refresh: new SqliteRefreshTokenStore(db),
    failures: new SqliteLoginFailureStore(db), throttle: new SqliteLoginThrottleStore(db),
    revocations: new SqliteRevocationStore(db), handoffs: new SqliteHandoffStore(db),
    devices: new SqliteDeviceStore(db), enrollments: new SqliteEnrollmentStore(db), challenges: new SqliteChallengeStore(db),
    recoveryCodes: new SqliteRecoveryCodeStore(db), proofJtis: new SqliteProofJtiStore(db), policy: new SqlitePolicyStore(db),
    directoryAccounts: new SqliteDirectoryAccountStore(db),
    upstreamIdps: new SqliteUpstreamIdpStore(db), upstreamLinks: new SqliteUpstreamLinkStore(db), brokerStates: new SqliteBrokerStateStore(db),
    signIns: new SqliteSignInStore(db),
    idpModels: new SqliteIdpModelStore(db),
  }));
}
