/**
 * The auth service's PostgreSQL store (issue 21 item 1): schema `auth`, migrations
 * `migrations/auth/pg/`. Returns the same `AuthStore` facade as the SQLite opener, so `app.ts`
 * and the domain take either. The files in the data directory (signing key, realm keys, handoff
 * file, upstream-SSO sealing key) stay files.
 */
import type { PgSettings } from '../../../../shared/db/pg/settings.js';
import { openPgStore } from '../../../../shared/db/pg/store.js';
import type { AuthStore } from '../auth-store.js';
import { PgHandoffStore, PgLoginFailureStore, PgLoginThrottleStore, PgRefreshTokenStore, PgRevocationStore, PgUserStore } from './accounts.js';
import {
  PgBrokerStateStore, PgDirectoryAccountStore, PgIdpModelStore, PgSignInStore, PgUpstreamIdpStore, PgUpstreamLinkStore,
} from './identity.js';
import { PgChallengeStore, PgDeviceStore, PgEnrollmentStore, PgPolicyStore, PgProofJtiStore, PgRecoveryCodeStore } from './second-factor.js';

/**
 * Connect, migrate and build the auth store on PostgreSQL.
 * @param migrationsDir the repository's `migrations` folder.
 * @throws Error when the server cannot be reached or a migration fails.
 */
export async function openPgAuthStore(settings: PgSettings, migrationsDir: string): Promise<AuthStore> {
  return openPgStore({ settings, service: 'auth', migrationsDir }, (db) => ({
    users: new PgUserStore(db), refresh: new PgRefreshTokenStore(db),
    failures: new PgLoginFailureStore(db), throttle: new PgLoginThrottleStore(db),
    revocations: new PgRevocationStore(db), handoffs: new PgHandoffStore(db),
    devices: new PgDeviceStore(db), enrollments: new PgEnrollmentStore(db), challenges: new PgChallengeStore(db),
    recoveryCodes: new PgRecoveryCodeStore(db), proofJtis: new PgProofJtiStore(db), policy: new PgPolicyStore(db),
    directoryAccounts: new PgDirectoryAccountStore(db),
    upstreamIdps: new PgUpstreamIdpStore(db), upstreamLinks: new PgUpstreamLinkStore(db), brokerStates: new PgBrokerStateStore(db),
    signIns: new PgSignInStore(db),
    idpModels: new PgIdpModelStore(db),
  }));
}
