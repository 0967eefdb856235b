/**
 * Inference router entry (spec "Services": inference router, port 8004, HTTP only; "Inference router").
 *
 * `start(cfg, runtime?)` opens the registry (`<dbDir>/inference-router.sqlite`, keys in the OS
 * keychain when a keychain service answers, else in the encrypted file under `<dataDir>/secrets/`),
 * scans `<modelsDir>/llm/*.gguf` for the local engine (loaded lazily in its own worker thread),
 * listens on `cfg.host:cfg.port` (0 = ephemeral) and returns the bound port with `close()` (drains
 * HTTP, stops the engine, flushes generation records and spans).
 * @throws Error when the store, the keychain or the key file cannot be opened.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { inferenceRouterService } from './app.js';

/** Start the inference router (see the file header for what it opens and closes). */
export const start = serviceStart(inferenceRouterService);
