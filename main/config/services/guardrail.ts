/**
 * Environment settings of the guardrail service, merged into its config slice by main/config.
 * It returns `GuardrailSettings` (services/guardrail/src/contracts.ts); the defaults live here only.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | SVC_GUARDRAIL_CLASSIFIER_TIMEOUT_MS | 3000 | per-call timeout of the router classifier |
 * | SVC_GUARDRAIL_CLASSIFIER_RETRY_SECONDS | 30 | how long a missing `guardrail` role is remembered |
 * | SVC_GUARDRAIL_DEID_RETENTION_HOURS | 168 | de-identification mappings are deleted after this |
 * | SVC_GUARDRAIL_MAX_BODY_BYTES | 2 MiB | largest request body |
 * | SVC_GUARDRAIL_DELIVERY_TIMEOUT_MS | 1500 | how long a check waits for its turn event and audit row |
 * | SVC_GUARDRAIL_CHECK_WORKERS | 2 | worker threads running the scanners, off the event loop (1-16) |
 * | SVC_GUARDRAIL_CHECK_BUDGET_MS | 2000 | budget of one scan from arrival; past it the check answers `block` (deidentify 422 `scan_incomplete`) |
 */
import type { GuardrailSettings } from '../../../services/guardrail/src/contracts.js';
import { int } from '../env.js';
import type { ExtrasContext, Env } from './types.js';

/**
 * Read the guardrail settings from `env`.
 * @throws ConfigError naming the variable to set.
 */
export function guardrailSettings(env: Env, _ctx: ExtrasContext): GuardrailSettings {
  return {
    classifierTimeoutMs: int(env, 'SVC_GUARDRAIL_CLASSIFIER_TIMEOUT_MS', 3000, 100, 60_000),
    classifierRetrySeconds: int(env, 'SVC_GUARDRAIL_CLASSIFIER_RETRY_SECONDS', 30, 1, 3600),
    deidRetentionHours: int(env, 'SVC_GUARDRAIL_DEID_RETENTION_HOURS', 168, 1, 24 * 365),
    maxBodyBytes: int(env, 'SVC_GUARDRAIL_MAX_BODY_BYTES', 2 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    deliveryTimeoutMs: int(env, 'SVC_GUARDRAIL_DELIVERY_TIMEOUT_MS', 1500, 0, 30_000),
    checkWorkers: int(env, 'SVC_GUARDRAIL_CHECK_WORKERS', 2, 1, 16),
    checkBudgetMs: int(env, 'SVC_GUARDRAIL_CHECK_BUDGET_MS', 2000, 50, 120_000),
  };
}
