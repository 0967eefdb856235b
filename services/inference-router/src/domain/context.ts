/**
 * What the router's routes share: config, registry, cooldowns, adapters and the clients of other
 * services. Built once in app.ts.
 */
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { SpanExporter } from '../../../observability/src/client.js';
import type { Adapter } from '../adapters/types.js';
import type { AuditRecorder } from '../clients/audit.js';
import type { BudgetGuard, GenerationReporter } from '../clients/observability.js';
import type { RouterConfig } from '../contracts.js';
import type { WeightHasher } from '../engine/models-dir.js';
import type { Registry } from './registry.js';
import type { Cooldowns } from './snapshot.js';

/** Shared state of the router's routes. */
export interface RouterContext {
  cfg: RouterConfig;
  registry: Registry;
  cooldowns: Cooldowns;
  adapters: { chat_completions: Adapter; responses: Adapter; local: Adapter };
  /** Upstream HTTP (keep-alive; never follows redirects). */
  dispatcher: Dispatcher;
  reporter: GenerationReporter;
  budget: BudgetGuard;
  tracer: SpanExporter;
  audit: AuditRecorder;
  hasher: WeightHasher;
  log: Logger;
}
