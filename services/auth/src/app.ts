/**
 * The auth service app (not listening): opens the store, loads or creates the signing key, runs the
 * first-start rules, and registers the routes on the shared server (`buildServer`).
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AuthConfig } from '../../shared/config.js';
import { buildServer } from '../../shared/http/server.js';
import { HANDOFF_FILE, SIGNING_KEY_FILE } from './contracts.js';
import { firstStart } from './domain/bootstrap.js';
import { HandoffService } from './domain/handoff.js';
import { LoginService } from './domain/login.js';
import { PasswordHasher } from './domain/passwords.js';
import type { Clock } from './domain/ports.js';
import { TokenService } from './domain/tokens.js';
import { UserService } from './domain/users.js';
import { publicRoutes } from './routes/public.js';
import { sessionRoutes } from './routes/session.js';
import { userRoutes } from './routes/users.js';
import { AuthStore } from './store/auth-store.js';
import { FsHandoffFile } from './store/handoff-file.js';
import { loadOrCreateSigningKey } from './store/signing-key-file.js';

/** Options of `buildAuthApp`. */
export interface BuildAuthAppOptions {
  cfg: AuthConfig;
  logger: Logger;
  /** Test seam: current time, Unix ms. */
  clock?: Clock;
}

/** The built app and what `close()` must release (call after the server has closed). */
export interface AuthApp {
  app: FastifyInstance;
  close(): void;
}

/** How often expired refresh tokens and old login failures are deleted, ms. */
const PRUNE_INTERVAL_MS = 10 * 60_000;

/**
 * Build the auth service app.
 * @throws Error when the store cannot be opened or the signing key file is unusable.
 */
export async function buildAuthApp(opts: BuildAuthAppOptions): Promise<AuthApp> {
  const { cfg, logger } = opts;
  const clock = opts.clock ?? Date.now;
  const store = AuthStore.open(cfg);
  let timer: NodeJS.Timeout | undefined;
  try {
    const key = await loadOrCreateSigningKey(join(cfg.dataDir, SIGNING_KEY_FILE));
    const hasher = new PasswordHasher(cfg.scryptN);
    const { users, refresh, failures, handoffs, tx } = store;
    const tokens = new TokenService({
      key, users, refresh, tx, clock, settings: cfg,
      onReuse: (info) => logger.warn(info, 'refresh token reused; session revoked'),
    });
    const file = new FsHandoffFile(join(cfg.dataDir, HANDOFF_FILE));
    const handoff = new HandoffService({ users, handoffs, file, tokens, tx, clock });
    const login = new LoginService({ settings: cfg, users, failures, hasher, tokens, tx, clock });
    const userService = new UserService({ users, hasher, tokens, clock });

    const bootstrapAdmin = cfg.bootstrapAdminEmail && cfg.bootstrapAdminPassword
      ? { email: cfg.bootstrapAdminEmail, password: cfg.bootstrapAdminPassword } : null;
    const outcome = await firstStart({ users, handoffs, file, handoff, hasher, tx, clock, bootstrapAdmin });
    if (outcome.kind === 'bootstrap_admin_created') logger.info({ user_id: outcome.user_id }, 'bootstrap admin created');
    if (outcome.kind === 'installer_handoff_issued') logger.info({ user_id: outcome.user_id, file: HANDOFF_FILE }, 'installer handoff written');

    const prune = (): void => {
      const now = clock();
      refresh.pruneExpired(now);
      failures.prune(now - cfg.loginThrottleWindowSeconds * 1000);
    };
    prune();
    timer = setInterval(() => {
      try { prune(); } catch (err) { logger.warn({ err: (err as Error).message }, 'auth store prune failed'); }
    }, PRUNE_INTERVAL_MS);
    timer.unref();

    const { app } = buildServer({
      name: 'auth', logger, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, bodyLimit: 64 * 1024,
    });
    await app.register(publicRoutes, { cfg, key, handoff });
    await app.register(sessionRoutes, { login, tokens, handoff });
    await app.register(userRoutes, { users: userService, issuer: cfg.issuer });
    return {
      app,
      close: () => {
        clearInterval(timer);
        store.close();
      },
    };
  } catch (err) {
    clearInterval(timer);
    store.close();
    throw err;
  }
}
