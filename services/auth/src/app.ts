/**
 * The auth service, as the kit builds it (DESIGN.md "Inside a service"): opens the store, loads or
 * creates the signing key, runs the first-start rules, registers the routes, and prunes expired
 * refresh tokens, old login-throttle state and old revocations in the background.
 *
 * This is the model room: every service is a `defineService` whose `setup` only wires stores,
 * domain services and route plugins.
 */
import { join } from 'node:path';
import type { AuthConfig } from '../../shared/config.js';
import { ClientHopVerifier } from '../../shared/identity/client-hop.js';
import { defineService } from '../../shared/kit/service.js';
import { AUTH_ERRORS, HANDOFF_FILE, SIGNING_KEY_FILE, type AuthRuntime } from './contracts.js';
import { firstStart } from './domain/bootstrap.js';
import { HandoffService } from './domain/handoff.js';
import { LoginService } from './domain/login.js';
import { PasswordHasher } from './domain/passwords.js';
import { RevocationService } from './domain/revocations.js';
import { TokenService } from './domain/tokens.js';
import { UserService } from './domain/users.js';
import { publicRoutes } from './routes/public.js';
import { revocationRoutes } from './routes/revocations.js';
import { sessionRoutes } from './routes/session.js';
import { userRoutes } from './routes/users.js';
import { openAuthStore } from './store/auth-store.js';
import { FsHandoffFile } from './store/handoff-file.js';
import { loadOrCreateSigningKey } from './store/signing-key-file.js';

/** How often expired refresh tokens and old login failures are deleted, ms. */
const PRUNE_INTERVAL_MS = 10 * 60_000;

/** The auth service (port 8012): local accounts and the embedded issuer `{public_url}/auth`. */
export const authService = defineService<AuthConfig, AuthRuntime>({
  name: 'auth',
  errors: AUTH_ERRORS,
  bodyLimit: 64 * 1024,
  async setup({ cfg, runtime, logger, app, onClose, background }) {
    const clock = runtime.clock ?? Date.now;
    const store = openAuthStore(cfg);
    onClose(() => store.close());
    const key = await loadOrCreateSigningKey(join(cfg.dataDir, SIGNING_KEY_FILE));
    const hasher = new PasswordHasher(cfg.scryptN);
    const { users, refresh, failures, throttle, revocations, handoffs, tx } = store;
    const tokens = new TokenService({
      key, users, refresh, tx, clock, settings: cfg, revocations,
      onReuse: (info) => logger.warn(info, 'refresh token reused; session revoked'),
    });
    const file = new FsHandoffFile(join(cfg.dataDir, HANDOFF_FILE));
    const handoff = new HandoffService({ users, handoffs, file, tokens, tx, clock });
    const login = new LoginService({ settings: cfg, users, failures, throttle, hasher, tokens, tx, clock });
    const revocationList = new RevocationService({ revocations, clock, settings: cfg });
    const userService = new UserService({ users, hasher, tokens, clock });

    const bootstrapAdmin = cfg.bootstrapAdminEmail && cfg.bootstrapAdminPassword
      ? { email: cfg.bootstrapAdminEmail, password: cfg.bootstrapAdminPassword } : null;
    const outcome = await firstStart({ users, handoffs, file, handoff, hasher, tx, clock, bootstrapAdmin });
    if (outcome.kind === 'bootstrap_admin_created') logger.info({ user_id: outcome.user_id }, 'bootstrap admin created');
    if (outcome.kind === 'installer_handoff_issued') logger.info({ user_id: outcome.user_id, file: HANDOFF_FILE }, 'installer handoff written');

    const prune = (): void => {
      const now = clock();
      refresh.pruneExpired(now);
      login.prune(now);
      revocationList.prune(now);
    };
    prune();
    background('prune', () => {
      const timer = setInterval(() => {
        try { prune(); } catch (err) { logger.warn({ err: (err as Error).message }, 'auth store prune failed'); }
      }, PRUNE_INTERVAL_MS);
      timer.unref();
      return () => clearInterval(timer);
    });

    await app.register(publicRoutes, { cfg, key, handoff });
    await app.register(sessionRoutes, { login, tokens, handoff, hop: new ClientHopVerifier(cfg.principalKeys) });
    await app.register(revocationRoutes, { revocations: revocationList });
    await app.register(userRoutes, { users: userService, issuer: cfg.issuer });
  },
});
