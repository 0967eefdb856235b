/**
 * dirauth as the kit builds it (spec "Services": dirauth, port 8010; issue 15 item 3): the LDAP
 * directory when DIRAUTH_LDAP_URL is set, the verifier, the admin view and test bind, the routes. Wiring only.
 */
import { defineService } from '../../shared/kit/service.js';
import { LdapDirectory } from './clients/ldap.js';
import { DIRAUTH_ERRORS, type DirauthConfig } from './contracts.js';
import type { Directory } from './domain/ports.js';
import { DirectoryVerifier } from './domain/verify.js';
import { verifyRoutes } from './routes/verify.js';
import { DirectoryAdmin } from './domain/admin.js';
import { adminRoutes } from './routes/admin.js';

/** Test seams of dirauth (`start(cfg, runtime)`'s second argument). */
export interface DirauthRuntime {
  /** Replaces the LDAP directory (unit tests). */
  directory?: Directory;
}

/** The dirauth service. */
export const dirauthService = defineService<DirauthConfig, DirauthRuntime>({
  name: 'dirauth',
  errors: DIRAUTH_ERRORS,
  bodyLimit: 16 * 1024,
  async setup({ cfg, runtime, logger, app }) {
    const directory = runtime.directory ?? (cfg.ldap ? new LdapDirectory(cfg.ldap) : null);
    if (cfg.ldap) logger.info({ url: cfg.ldap.url, startTls: cfg.ldap.startTls }, 'corporate directory sign-in enabled');
    await app.register(verifyRoutes, { verifier: new DirectoryVerifier(directory, logger) });
    // Issue 15 item 5: Admin → Identity's directory connection (settings, test bind).
    await app.register(adminRoutes, { admin: new DirectoryAdmin({ settings: cfg.ldap, directory, now: () => performance.now(), log: logger }) });
  },
});
