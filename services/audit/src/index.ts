/**
 * Audit service entry (spec "Services": audit, port 8008; "Audit log row", "Turn event",
 * "Turn envelope", "Receipt", "Audit and receipts", "Audit signing keys").
 *
 * `start(cfg, runtime?)` validates the signing keys (refuses to start with a short or placeholder
 * AUDIT_SIGNING_KEY and says why), opens `<dbDir>/audit.sqlite`, listens on `cfg.host:cfg.port`
 * (0 = ephemeral) and starts the background sealer. `close()` drains HTTP, stops the sealer,
 * commits queued writes and closes the store.
 */
import type { AuditConfig } from '../../shared/config.js';
import { listenBuilt } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService } from '../../shared/runtime.js';
import { buildAuditApp } from './app.js';
import { keyRingFromConfig } from './domain/keys.js';
import type { AuditRuntime } from './contracts.js';
import type { KeyProvider, KeyRing } from './domain/keys.js';
import type { AuditKeyMaterial } from '../../shared/runtime.js';

/**
 * A key provider over the host's live key material: the ring is rebuilt (and validated) only when
 * the material object changes. A rotated-in bad key keeps the previous ring and is reported once.
 */
function liveKeys(material: () => AuditKeyMaterial): KeyProvider {
  let last: AuditKeyMaterial | null = null;
  let ring: KeyRing | null = null;
  return () => {
    const m = material();
    if (m !== last || !ring) {
      try { ring = keyRingFromConfig(m); } catch (err) { if (!ring) throw err; }
      last = m;
    }
    return ring!;
  };
}

/**
 * Start the audit service.
 * @param cfg the audit config slice (main/config).
 * @param runtime optional host hooks; `auditKeys` rotates keys without a restart.
 * @returns the bound port and `close()`.
 * @throws Error when the keys are unacceptable or the store cannot be opened.
 */
export async function start(cfg: AuditConfig, runtime: AuditRuntime = {}): Promise<RunningService> {
  keyRingFromConfig(cfg); // refuse to start on a bad key before anything opens
  const logger = createLogger(cfg.service, cfg.logLevel, cfg.logDir);
  const keys = runtime.auditKeys ?? (runtime.auditKeyMaterial ? liveKeys(runtime.auditKeyMaterial) : undefined);
  const built = keys ? buildAuditApp(cfg, { logger, keys }) : buildAuditApp(cfg, { logger });
  const running = await listenBuilt(built, cfg, logger);
  built.sealer.start();
  return running;
}
