/**
 * The gateway's contracts (services/gateway/src/contracts.ts): the strip lists cover every identity
 * header and the client's credentials, the error table maps its codes to 401, the fixed bodies are
 * the spec's bytes, and the file imports nothing from Node (the renderer and the shell import it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statusOf } from '../../../services/shared/kit/domain-error.js';
import {
  GATEWAY_ERRORS, IDENTITY_HEADERS, RENDERER_CSP, SERVICE_UNAVAILABLE_BODY, STRIP_INBOUND, STRIP_OUTBOUND,
} from '../../../services/gateway/src/contracts.js';

test('inbound strip list: identity headers, bearer, cookies, forwarding and hop-by-hop headers', () => {
  assert.equal(IDENTITY_HEADERS.length, 7);
  for (const h of [...IDENTITY_HEADERS, 'authorization', 'cookie', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip', 'host', 'connection', 'content-length', 'transfer-encoding']) {
    assert.ok(STRIP_INBOUND.has(h), h);
  }
  for (const h of ['content-type', 'accept', 'x-correlation-id', 'user-agent']) assert.ok(!STRIP_INBOUND.has(h), h);
});

test('outbound strip list: hop-by-hop only', () => {
  for (const h of ['connection', 'keep-alive', 'transfer-encoding', 'upgrade']) assert.ok(STRIP_OUTBOUND.has(h), h);
  for (const h of ['content-length', 'content-type', 'set-cookie', 'x-svc-turn-id']) assert.ok(!STRIP_OUTBOUND.has(h), h);
});

test('error table: token codes are 401, a refused Host 403; the common codes the chain uses keep their statuses', () => {
  for (const code of Object.keys(GATEWAY_ERRORS).filter((c) => c.startsWith('token_'))) assert.equal(statusOf(GATEWAY_ERRORS, code), 401, code);
  assert.equal(statusOf(GATEWAY_ERRORS, 'host_not_allowed'), 403);
  const common: Array<[string, number]> = [['payload_too_large', 413], ['rate_limited', 429], ['tenant_mismatch', 403], ['admin_required', 403], ['not_found', 404]];
  for (const [code, status] of common) assert.equal(statusOf(GATEWAY_ERRORS, code), status, code);
});

test('fixed bodies and policy', () => {
  assert.equal(SERVICE_UNAVAILABLE_BODY, '{"error":"service unavailable"}');
  assert.match(RENDERER_CSP, /^default-src 'self';/);
  assert.match(RENDERER_CSP, /frame-ancestors 'none'/);
});

test('contracts.ts imports nothing from Node, and values only from Node-free modules', () => {
  const src = readFileSync(join(process.cwd(), 'services', 'gateway', 'src', 'contracts.ts'), 'utf8');
  const imports = [...src.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)'/gm)];
  assert.ok(imports.length > 0);
  for (const m of imports) {
    assert.ok(!m[2]!.startsWith('node:'), m[0]);
    const nodeFree = ['typebox', '../../shared/kit/domain-error.js', '../../shared/kit/typebox.js'];
    assert.ok(m[1] !== undefined || nodeFree.includes(m[2]!), `value import in contracts.ts: ${m[0]}`);
  }
});
