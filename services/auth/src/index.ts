/**
 * Auth service entry (spec: Auth, port 8012): local accounts, password login, rotating refresh
 * tokens, installer handoff, and the issuer `{public_url}/auth` with its JWKS.
 */
import type { AuthConfig } from '../../shared/config.js';
import { listenService } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService } from '../../shared/runtime.js';
import { buildAuthApp } from './app.js';

/**
 * Start the auth service on `cfg.host:cfg.port` (0 = ephemeral).
 * @returns the bound port and `close()` (drains requests, then closes the store).
 * @throws Error when the store or the signing key cannot be opened.
 */
export async function start(cfg: AuthConfig): Promise<RunningService> {
  const logger = createLogger('auth', cfg.logLevel, cfg.logDir);
  const built = await buildAuthApp({ cfg, logger });
  try {
    return await listenService(built.app, cfg.host, cfg.port, () => {
      built.close();
      logger.flush();
    });
  } catch (err) {
    await built.app.close();
    built.close();
    throw err;
  }
}
