/**
 * The gateway's table of upstream body limits (services/gateway/src/domain/body-limits.ts; issue 11
 * item 4): service defaults, route-level limits on the upstream path, the two settings that move
 * limits, and defaults equal to the ones main/config reads (so a gateway started without the
 * settings refuses exactly what the services would). The route-by-route comparison with every
 * service lives in test/integration/gateway-body-limit.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BodyLimits, DEFAULT_UPSTREAM_BODY_SETTINGS } from '../../../services/gateway/src/domain/body-limits.js';
import { guardrailSettings } from '../../../main/config/services/guardrail.js';
import { knowledgeSettings } from '../../../main/config/services/knowledge.js';

const MiB = 1024 * 1024;
const ctx = { dataDir: '/tmp/svc-limits-unit', repoRoot: '/tmp/svc-limits-repo', production: false };

test('defaults equal the settings readers\' defaults', () => {
  assert.equal(DEFAULT_UPSTREAM_BODY_SETTINGS.guardrailMaxBodyBytes, guardrailSettings({}, ctx).maxBodyBytes);
  assert.equal(DEFAULT_UPSTREAM_BODY_SETTINGS.knowledgeMaxUploadBytes, knowledgeSettings({}, ctx).maxUploadBytes);
});

test('service limits, and route limits on the exact method and upstream path', () => {
  const l = new BodyLimits();
  assert.equal(l.upstream('memory', 'POST', '/v1/memory'), MiB);
  assert.equal(l.upstream('auth', 'POST', '/v1/auth/login'), 64 * 1024);
  assert.equal(l.upstream('agent-runtime', 'POST', '/v1/chat/stream'), 32 * MiB);
  assert.equal(l.upstream('audit', 'POST', '/v1/audit'), 16 * MiB);
  assert.equal(l.upstream('audit', 'POST', '/v1/audit/artifacts'), 48 * MiB);
  assert.equal(l.upstream('audit', 'PUT', '/v1/audit/artifacts'), 16 * MiB, 'another method is the service limit');
  assert.equal(l.upstream('audit', 'POST', '/v1/audit/artifacts/x'), 16 * MiB, 'another path is the service limit');
  assert.equal(l.upstream('knowledge', 'POST', '/v1/knowledge/ingest'), 51 * MiB);
  assert.equal(l.upstream('knowledge', 'POST', '/v1/knowledge/ingest/batch'), 64 * MiB);
  assert.equal(l.upstream('guardrail', 'POST', '/v1/guard/input'), 2 * MiB);
});

test('the guardrail and knowledge settings move their limits', () => {
  const l = new BodyLimits({ guardrailMaxBodyBytes: 5 * MiB, knowledgeMaxUploadBytes: 100 * MiB });
  assert.equal(l.upstream('guardrail', 'POST', '/v1/guard/output'), 5 * MiB);
  assert.equal(l.upstream('knowledge', 'POST', '/v1/knowledge/ingest/text'), 101 * MiB);
  assert.equal(l.upstream('knowledge', 'POST', '/v1/knowledge/ingest/batch'), 101 * MiB);
  assert.equal(l.upstream('knowledge', 'POST', '/v1/knowledge/search'), 64 * MiB);
});
