/**
 * Environment settings of the guardrail service, merged into its config slice by main/config.
 * It returns `GuardrailSettings` (services/guardrail/src/contracts.ts); the defaults live here only.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | SVC_GUARDRAIL_CLASSIFIER_TIMEOUT_MS | 3000 | deadline of one model-judge call (router `guardrail` role); past it the policy's `model_classifier.on_failure` decides |
 * | SVC_GUARDRAIL_CLASSIFIER_RETRY_SECONDS | 30 | how long a missing `guardrail` role is remembered |
 * | SVC_GUARDRAIL_DEID_RETENTION_HOURS | 168 | de-identification mappings are deleted after this |
 * | SVC_GUARDRAIL_MAX_BODY_BYTES | 2 MiB | largest request body |
 * | SVC_GUARDRAIL_DELIVERY_TIMEOUT_MS | 1500 | how long a check waits for its turn event and audit row |
 * | SVC_GUARDRAIL_CHECK_WORKERS | 2 | worker threads running the scanners, off the event loop (1-16) |
 * | SVC_GUARDRAIL_CHECK_BUDGET_MS | 2000 | budget of one scan from arrival; past it the check answers `block` (deidentify 422 `scan_incomplete`) |
 * | SVC_GUARDRAIL_NGRAM_MODEL | `<repo>/assets/guardrail/ngram-guard.json` | weights of the trained n-gram classifier; `off` runs without it |
 * | SVC_GUARDRAIL_CLASSIFIER_MODEL | deberta-v3-base-prompt-injection-v2 | folder name of the encoder classifier, looked up like the embedding model (SVC_MODELS_DIR, `<repo>/assets/models`, `<dataDir>/models`) |
 * | SVC_GUARDRAIL_ENCODER_TIMEOUT_MS | 2000 | longest wait for the encoder classifier on one check; past it the other layers decide |
 * | SVC_GUARDRAIL_ENCODER_MAX_WINDOWS | 4 | most 512-token windows of one text the encoder reads (the first and last ones when there are more) |
 * | SVC_GUARDRAIL_ENCODER_THREADS | 1 | onnxruntime threads of the encoder classifier |
 */
import type { GuardrailSettings } from '../../../services/guardrail/src/contracts.js';
import { join } from 'node:path';
import { ConfigError, int, str } from '../env.js';
import { embeddingSettings } from './knowledge.js';
import type { ExtrasContext, Env } from './types.js';

/**
 * Read the guardrail settings from `env`.
 * @throws ConfigError naming the variable to set.
 */
export function guardrailSettings(env: Env, ctx: ExtrasContext): GuardrailSettings {
  const ngram = str(env, 'SVC_GUARDRAIL_NGRAM_MODEL');
  const encoderModel = str(env, 'SVC_GUARDRAIL_CLASSIFIER_MODEL') || 'deberta-v3-base-prompt-injection-v2';
  if (!/^[A-Za-z0-9._/-]+$/.test(encoderModel) || encoderModel.includes('..')) throw new ConfigError('SVC_GUARDRAIL_CLASSIFIER_MODEL must be a folder name such as deberta-v3-base-prompt-injection-v2');
  return {
    ngramModelPath: ngram === 'off' ? null : ngram || join(ctx.repoRoot, 'assets', 'guardrail', 'ngram-guard.json'),
    modelDirs: embeddingSettings(env, ctx).modelDirs,
    encoderModel,
    encoderTimeoutMs: int(env, 'SVC_GUARDRAIL_ENCODER_TIMEOUT_MS', 2000, 50, 120_000),
    encoderMaxWindows: int(env, 'SVC_GUARDRAIL_ENCODER_MAX_WINDOWS', 4, 1, 64),
    encoderThreads: int(env, 'SVC_GUARDRAIL_ENCODER_THREADS', 1, 1, 16),
    classifierTimeoutMs: int(env, 'SVC_GUARDRAIL_CLASSIFIER_TIMEOUT_MS', 3000, 100, 60_000),
    classifierRetrySeconds: int(env, 'SVC_GUARDRAIL_CLASSIFIER_RETRY_SECONDS', 30, 1, 3600),
    deidRetentionHours: int(env, 'SVC_GUARDRAIL_DEID_RETENTION_HOURS', 168, 1, 24 * 365),
    maxBodyBytes: int(env, 'SVC_GUARDRAIL_MAX_BODY_BYTES', 2 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    deliveryTimeoutMs: int(env, 'SVC_GUARDRAIL_DELIVERY_TIMEOUT_MS', 1500, 0, 30_000),
    checkWorkers: int(env, 'SVC_GUARDRAIL_CHECK_WORKERS', 2, 1, 16),
    checkBudgetMs: int(env, 'SVC_GUARDRAIL_CHECK_BUDGET_MS', 2000, 50, 120_000),
  };
}
