/**
 * gRPC settings (issue 20; main/config/grpc.ts): USE_GRPC defaults to true, SVC_<SERVICE>_GRPC=false
 * turns one server off, ports are HTTP + 1000 when the HTTP port is fixed, and a service another
 * process runs is reached at its URL's port + 1000.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grpcFields, readGrpcSettings, resolveGrpcPorts } from '../../../main/config/grpc.js';
import { DEFAULT_PORTS } from '../../../services/shared/services.js';

test('defaults: USE_GRPC on, the spec gRPC services enabled, the router and the gateway without one', () => {
  const g = readGrpcSettings({});
  assert.equal(g.useGrpc, true);
  assert.deepEqual([...g.enabled].sort(), ['agent-runtime', 'audit', 'guardrail', 'knowledge', 'memory', 'sandbox']);
  const off = readGrpcSettings({ USE_GRPC: 'false', SVC_GUARDRAIL_GRPC: 'false' });
  assert.equal(off.useGrpc, false);
  assert.ok(!off.enabled.includes('guardrail'));
  assert.ok(off.enabled.includes('memory'));
});

test('ports: HTTP + 1000 when fixed, a picked port when ephemeral, an explicit one wins', async () => {
  const g = readGrpcSettings({ SVC_AUDIT_GRPC_PORT: '9999' });
  const requested = { ...DEFAULT_PORTS, knowledge: 0 };
  const actual = { ...DEFAULT_PORTS, knowledge: 23456 };
  const ports = await resolveGrpcPorts(g, requested, actual, async () => 31000);
  assert.equal(ports.memory, 9003);
  assert.equal(ports.guardrail, 9002);
  assert.equal(ports.knowledge, 31000);
  assert.equal(ports.audit, 9999);
  assert.equal(ports['inference-router'], undefined);
  const f = grpcFields(g, 'memory', '127.0.0.1', ports, { audit: 'http://10.0.0.5:8008' });
  assert.equal(f.grpcPort, 9003);
  assert.equal(f.grpcUrls.memory, '127.0.0.1:9003');
  assert.equal(f.grpcUrls.audit, '10.0.0.5:9008');
  assert.equal(grpcFields(g, 'gateway', '127.0.0.1', ports).grpcPort, null);
});
