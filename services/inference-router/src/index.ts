/**
 * Inference router entry (spec "Services": inference router, port 8004, HTTP only; "Inference router").
 *
 * `start(cfg)` opens the registry (`<dbDir>/inference-router.sqlite`, keys in the OS keychain when a
 * keychain service answers, else in the encrypted file under `<dataDir>/secrets/`), scans `<modelsDir>/llm/*.gguf` for the local engine (loaded lazily in
 * its own worker thread), listens on `cfg.host:cfg.port` (0 = ephemeral) and returns the bound port
 * with `close()` (drains HTTP, stops the engine, flushes generation records and spans).
 */
import { join } from 'node:path';
import { listenBuilt } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService } from '../../shared/runtime.js';
import { buildRouterApp } from './app.js';
import { openSecretStore } from './store/secret-store.js';
import type { RouterConfig } from './contracts.js';

/** Defaults for settings a plain config slice (tests, older hosts) may lack. */
export function withDefaults(cfg: RouterConfig): RouterConfig {
  return {
    ...cfg,
    modelsDir: cfg.modelsDir ?? join(cfg.dataDir, 'models'),
    localEngineEnabled: cfg.localEngineEnabled ?? true,
    localThreads: cfg.localThreads ?? 2,
    localContextSize: cfg.localContextSize ?? 512,
    localMaxTokens: cfg.localMaxTokens ?? 256,
    snapshotRefreshSeconds: cfg.snapshotRefreshSeconds ?? 30,
    cooldownSeconds: cfg.cooldownSeconds ?? 30,
    probeTimeoutMs: cfg.probeTimeoutMs ?? 5000,
    upstreamTimeoutMs: cfg.upstreamTimeoutMs ?? 120_000,
    budgetCacheMs: cfg.budgetCacheMs ?? 5000,
  };
}

/** Start the inference router. @throws Error when the store, the keychain or the key file cannot be opened. */
export async function start(cfg: RouterConfig): Promise<RunningService> {
  const full = withDefaults(cfg);
  const logger = createLogger(cfg.service, cfg.logLevel, cfg.logDir);
  const secrets = await openSecretStore(full.dataDir, { log: logger, mode: full.secretStore ?? 'auto' });
  const built = buildRouterApp(full, { logger, secrets });
  return listenBuilt(built, cfg, logger);
}
