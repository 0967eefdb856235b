/**
 * The per-service settings readers (main/config/services/*.ts): each returns its service's settings
 * type with every default filled in (the defaults live only there), and refuses bad values with a
 * `ConfigError` naming the variable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../../main/config/env.js';
import { SERVICE_SETTINGS, readServiceSettings, type ExtrasContext } from '../../../main/config/services/index.js';
import { agentRuntimeSettings } from '../../../main/config/services/agent-runtime.js';
import { guardrailSettings } from '../../../main/config/services/guardrail.js';
import { inferenceRouterSettings } from '../../../main/config/services/inference-router.js';
import { embeddingSettings, knowledgeSettings } from '../../../main/config/services/knowledge.js';
import { memorySettings } from '../../../main/config/services/memory.js';
import { observabilitySettings } from '../../../main/config/services/observability.js';
import { sandboxSettings } from '../../../main/config/services/sandbox.js';
import { dirauthSettings } from '../../../main/config/services/dirauth.js';

function context(): ExtrasContext {
  const root = mkdtempSync(join(tmpdir(), 'svc-readers-'));
  return { dataDir: join(root, 'data'), repoRoot: join(root, 'repo'), production: false };
}

/** Assert `fn` throws a ConfigError naming `variable`. */
function refuses(fn: () => unknown, variable: string): void {
  assert.throws(fn, (err: unknown) => err instanceof ConfigError && err.message.includes(variable), `expected a ConfigError naming ${variable}`);
}

test('guardrail: defaults and bounds', () => {
  const ctx = context();
  assert.deepEqual(guardrailSettings({}, ctx), {
    classifierTimeoutMs: 3000, classifierRetrySeconds: 30, deidRetentionHours: 168, maxBodyBytes: 2 * 1024 * 1024, deliveryTimeoutMs: 1500,
    checkWorkers: 2, checkBudgetMs: 2000,
    // Issue 16 items 1 and 2: the learned layers' files and limits.
    ngramModelPath: join(ctx.repoRoot, 'assets', 'guardrail', 'ngram-guard.json'),
    modelDirs: [join(ctx.repoRoot, 'assets', 'models'), join(ctx.dataDir, 'models')], encoderModel: 'deberta-v3-base-prompt-injection-v2',
    encoderTimeoutMs: 2000, encoderMaxWindows: 4, encoderThreads: 1,
  });
  assert.equal(guardrailSettings({ SVC_GUARDRAIL_NGRAM_MODEL: 'off' }, ctx).ngramModelPath, null);
  assert.deepEqual(guardrailSettings({ SVC_MODELS_DIR: '/models' }, ctx).modelDirs[0], '/models');
  refuses(() => guardrailSettings({ SVC_GUARDRAIL_CLASSIFIER_MODEL: '../x' }, ctx), 'SVC_GUARDRAIL_CLASSIFIER_MODEL');
  assert.equal(guardrailSettings({ SVC_GUARDRAIL_DELIVERY_TIMEOUT_MS: '0' }, context()).deliveryTimeoutMs, 0);
  refuses(() => guardrailSettings({ SVC_GUARDRAIL_CLASSIFIER_TIMEOUT_MS: '99' }, context()), 'SVC_GUARDRAIL_CLASSIFIER_TIMEOUT_MS');
  refuses(() => guardrailSettings({ SVC_GUARDRAIL_MAX_BODY_BYTES: 'big' }, context()), 'SVC_GUARDRAIL_MAX_BODY_BYTES');
});

test('knowledge: defaults, model folders in lookup order, chunk overlap guard', () => {
  const ctx = context();
  assert.deepEqual(knowledgeSettings({}, ctx), {
    embeddingDims: 384,
    modelDirs: [join(ctx.repoRoot, 'assets', 'models'), join(ctx.dataDir, 'models')],
    embeddingModel: 'all-MiniLM-L6-v2',
    searchScoreThreshold: 0.5,
    sparseEnabled: true,
    maxUploadBytes: 50 * 1024 * 1024,
    chunkChars: 2000,
    chunkOverlapChars: 200,
    llmModel: 'default',
    maxExpandedBytes: 64 * 1024 * 1024,
    maxPdfPages: 2000,
    maxTextChars: 8_000_000,
    maxChunksPerDocument: 5000,
    parseTimeoutMs: 120_000,
    parseMemoryMb: 1024,
    parseConcurrency: 2,
    ingestWaitMs: 10_000,
  });
  refuses(() => knowledgeSettings({ KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT: '0' }, ctx), 'KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT');
  refuses(() => knowledgeSettings({ KNOWLEDGE_PARSE_MEMORY_MB: '16' }, ctx), 'KNOWLEDGE_PARSE_MEMORY_MB');
  assert.equal(knowledgeSettings({ KNOWLEDGE_INGEST_WAIT_MS: '0' }, ctx).ingestWaitMs, 0);
  assert.deepEqual(embeddingSettings({ SVC_MODELS_DIR: '/models' }, ctx).modelDirs, ['/models', join(ctx.repoRoot, 'assets', 'models'), join(ctx.dataDir, 'models')]);
  assert.equal(knowledgeSettings({ SEARCH_SCORE_THRESHOLD: '0.25', SPARSE_EMBEDDING_ENABLED: 'false' }, ctx).searchScoreThreshold, 0.25);
  refuses(() => knowledgeSettings({ KNOWLEDGE_CHUNK_CHARS: '400', KNOWLEDGE_CHUNK_OVERLAP_CHARS: '200' }, ctx), 'KNOWLEDGE_CHUNK_OVERLAP_CHARS');
  refuses(() => knowledgeSettings({ SEARCH_SCORE_THRESHOLD: '2' }, ctx), 'SEARCH_SCORE_THRESHOLD');
  refuses(() => knowledgeSettings({ SVC_EMBEDDING_MODEL: '../etc' }, ctx), 'SVC_EMBEDDING_MODEL');
  refuses(() => knowledgeSettings({ EMBEDDING_DIMS: '4' }, ctx), 'EMBEDDING_DIMS');
  refuses(() => knowledgeSettings({ SPARSE_EMBEDDING_ENABLED: 'perhaps' }, ctx), 'SPARSE_EMBEDDING_ENABLED');
});

test('memory: shares the embedding settings; its own defaults and bounds', () => {
  const ctx = context();
  const m = memorySettings({ SVC_EMBEDDING_MODEL: 'bge-small', EMBEDDING_DIMS: '512' }, ctx);
  assert.deepEqual(m, {
    embeddingDims: 512,
    modelDirs: [join(ctx.repoRoot, 'assets', 'models'), join(ctx.dataDir, 'models')],
    embeddingModel: 'bge-small',
    consolidationIntervalHours: 24,
    prefetchTokenBudget: 512,
    duplicateSimilarity: 0.92,
  });
  assert.equal(memorySettings({ CONSOLIDATION_INTERVAL_HOURS: '0' }, ctx).consolidationIntervalHours, 0);
  assert.equal(memorySettings({ CONSOLIDATION_INTERVAL_HOURS: '0.5' }, ctx).consolidationIntervalHours, 0.5);
  refuses(() => memorySettings({ MEMORY_DUPLICATE_SIMILARITY: '0.4' }, ctx), 'MEMORY_DUPLICATE_SIMILARITY');
  refuses(() => memorySettings({ MEMORY_PREFETCH_TOKEN_BUDGET: '8' }, ctx), 'MEMORY_PREFETCH_TOKEN_BUDGET');
});

test('inference-router: defaults, models folder lookup, secret store choice', () => {
  const ctx = context();
  assert.deepEqual(inferenceRouterSettings({}, ctx), {
    modelsDir: join(ctx.dataDir, 'models'),
    localEngineEnabled: true,
    localThreads: 2,
    localContextSize: 512,
    localMaxTokens: 256,
    snapshotRefreshSeconds: 30,
    cooldownSeconds: 30,
    probeTimeoutMs: 5000,
    upstreamTimeoutMs: 120_000,
    budgetCacheMs: 5000,
    secretStore: 'auto',
  });
  mkdirSync(join(ctx.repoRoot, 'assets', 'models'), { recursive: true });
  assert.equal(inferenceRouterSettings({}, ctx).modelsDir, join(ctx.repoRoot, 'assets', 'models'), 'the packaged folder when it exists');
  assert.equal(inferenceRouterSettings({ SVC_MODELS_DIR: 'rel/models' }, ctx).modelsDir, resolve('rel/models'), 'explicit, resolved');
  assert.equal(inferenceRouterSettings({ SVC_SECRET_STORE: 'KEYCHAIN' }, ctx).secretStore, 'keychain');
  refuses(() => inferenceRouterSettings({ SVC_SECRET_STORE: 'vault' }, ctx), 'SVC_SECRET_STORE');
  refuses(() => inferenceRouterSettings({ SVC_LOCAL_LLM_CONTEXT: '32' }, ctx), 'SVC_LOCAL_LLM_CONTEXT');
  refuses(() => inferenceRouterSettings({ SVC_LOCAL_LLM_ENABLED: 'sometimes' }, ctx), 'SVC_LOCAL_LLM_ENABLED');
});

test('observability: defaults; local prices and the pricing URL validated', () => {
  const ctx = context();
  assert.deepEqual(observabilitySettings({}, ctx), { localPrices: {}, pricingModelsUrl: null, pricingTimeoutMs: 10_000, traceRetentionDays: 7 });
  const s = observabilitySettings({ OBS_LOCAL_PRICE_JSON: '{"gpt-x": {"in": 0.15, "out": 0.6}}', PRICING_MODELS_URL: 'https://prices.example/models' }, ctx);
  assert.deepEqual(s.localPrices, { 'gpt-x': { in: 0.15, out: 0.6 } });
  assert.equal(s.pricingModelsUrl, 'https://prices.example/models');
  refuses(() => observabilitySettings({ OBS_LOCAL_PRICE_JSON: '{nope' }, ctx), 'OBS_LOCAL_PRICE_JSON');
  refuses(() => observabilitySettings({ OBS_LOCAL_PRICE_JSON: '{"m": {"in": -1, "out": 1}}' }, ctx), 'OBS_LOCAL_PRICE_JSON');
  refuses(() => observabilitySettings({ PRICING_MODELS_URL: 'not a url' }, ctx), 'PRICING_MODELS_URL');
  refuses(() => observabilitySettings({ PRICING_MODELS_URL: 'ftp://prices.example' }, ctx), 'PRICING_MODELS_URL');
  refuses(() => observabilitySettings({ OBS_TRACE_RETENTION_DAYS: '0' }, ctx), 'OBS_TRACE_RETENTION_DAYS');
});

test('agent-runtime: every default; bad values name their variable', () => {
  assert.deepEqual(agentRuntimeSettings({}, context()), {
    maxToolSteps: 8,
    contextBudgetTokens: 8192,
    responseReserveTokens: 1024,
    approvalTimeoutSeconds: 600,
    guardrailFailMode: 'closed',
    toolPolicy: [],
    systemPrompt: null,
    defaultAgentId: 'default',
    modelTimeoutSeconds: 120,
    titleGeneration: true,
    contextPrefetch: true,
    sidecarTimeoutMs: 3000,
    contextRecordsPerUser: 1000,
    conversationsEnabled: false,
    notificationProducers: ['agent-runtime', 'knowledge', 'observability', 'sandbox', 'auth', 'dirauth'],
    notificationsMaxPerUser: 10_000,
    profileBudgetTokens: 256,
    secretStore: 'auto',
  });
  assert.equal(agentRuntimeSettings({ AGENT_RUNTIME_GUARDRAIL_FAIL_MODE: 'CLOSED' }, context()).guardrailFailMode, 'closed');
  assert.deepEqual(agentRuntimeSettings({ AGENT_RUNTIME_TOOL_POLICY: '[{"tool":"x","policy":"auto","tenant_id":"t"}]' }, context()).toolPolicy, [{ tool: 'x', policy: 'auto', tenant_id: 't' }]);
  refuses(() => agentRuntimeSettings({ AGENT_RUNTIME_DEFAULT_AGENT_ID: 'has space' }, context()), 'AGENT_RUNTIME_DEFAULT_AGENT_ID');
  refuses(() => agentRuntimeSettings({ AGENT_RUNTIME_TOOL_POLICY: '"ask"' }, context()), 'AGENT_RUNTIME_TOOL_POLICY');
  refuses(() => agentRuntimeSettings({ AGENT_RUNTIME_SIDECAR_TIMEOUT_MS: '10' }, context()), 'AGENT_RUNTIME_SIDECAR_TIMEOUT_MS');
  refuses(() => agentRuntimeSettings({ AGENT_RUNTIME_TITLES: 'sure' }, context()), 'AGENT_RUNTIME_TITLES');
  refuses(() => agentRuntimeSettings({ AGENT_RUNTIME_PROFILE_BUDGET_TOKENS: '9000' }, context()), 'AGENT_RUNTIME_PROFILE_BUDGET_TOKENS');
  refuses(() => agentRuntimeSettings({ SVC_SECRET_STORE: 'vault' }, context()), 'SVC_SECRET_STORE');
  assert.equal(agentRuntimeSettings({ AGENT_RUNTIME_CONVERSATIONS_ENABLED: 'true' }, context()).conversationsEnabled, true);
  refuses(() => agentRuntimeSettings({ AGENT_RUNTIME_CONVERSATIONS_ENABLED: 'maybe' }, context()), 'AGENT_RUNTIME_CONVERSATIONS_ENABLED');
});

test('sandbox has its settings (issue 12; test/unit/sandbox/settings.test.ts); dirauth is off without DIRAUTH_LDAP_URL (issue 15 item 3; test/unit/dirauth/directory-filter.test.ts)', () => {
  assert.equal(sandboxSettings({ ANYTHING: '1' }, context()).maxSessions, 50);
  refuses(() => sandboxSettings({ SANDBOX_BACKEND: 'remote' }, context()), 'SANDBOX_BACKEND');
  assert.deepEqual(dirauthSettings({}, context()), { ldap: null });
});

test('readServiceSettings runs every reader, keyed by service', () => {
  const ctx = context();
  const all = readServiceSettings({ SVC_GUARDRAIL_DEID_RETENTION_HOURS: '2' }, ctx);
  assert.deepEqual(Object.keys(all).sort(), Object.keys(SERVICE_SETTINGS).sort());
  assert.deepEqual(Object.keys(all).sort(), ['agent-runtime', 'dirauth', 'guardrail', 'inference-router', 'knowledge', 'memory', 'observability', 'sandbox']);
  assert.equal(all.guardrail.deidRetentionHours, 2);
  assert.equal(all['agent-runtime'].maxToolSteps, 8);
  assert.equal(all.knowledge.chunkChars, 2000);
  refuses(() => readServiceSettings({ MEMORY_DUPLICATE_SIMILARITY: '7' }, ctx), 'MEMORY_DUPLICATE_SIMILARITY');
});
