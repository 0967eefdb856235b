/**
 * Notifications of removed sandbox sessions (issue 13 item 1): the session table reports evicted,
 * reaped and destroyed sessions with their creator (not those removed at service stop), and the
 * notice names the reason, links the chat and is unique per removal; service-created sessions
 * notify nobody.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import type { SandboxSettings } from '../../../services/sandbox/src/contracts.js';
import { Containers, WarmPool } from '../../../services/sandbox/src/domain/containers.js';
import { Engine } from '../../../services/sandbox/src/domain/engine.js';
import { SessionManager, type SessionKey } from '../../../services/sandbox/src/domain/sessions.js';
import { sessionRemovedNotice } from '../../../services/sandbox/src/domain/session-notices.js';
import { FakeBackend } from './fake-backend.js';

const logger = pino({ enabled: false });
const settings: SandboxSettings = {
  backend: 'docker', image: 'img', runtime: 'auto', idleTimeoutSeconds: 5, maxSessions: 1, memLimitBytes: 64 * 1024 * 1024, cpus: 1,
  pidsLimit: 64, networkEnabled: false, gpuEnabled: false, gpuNetworkEnabled: false, maxTimeoutSeconds: 10, warmPoolSize: 0, dockerSocket: '/x',
};
const alice = { id: 'alice', tenant_id: 't', roles: ['user'], auth_method: 'password' as const };
const key = (sessionId: string): SessionKey => ({ tenantId: 't', sessionId });

test('evicted, reaped and destroyed sessions are reported with their creator; a stop reports none', async () => {
  const clock = { t: 1_000_000 };
  const now = (): number => clock.t;
  const backend = new FakeBackend();
  const engine = new Engine({ backend, settings, logger, now });
  const containers = new Containers({ backend, engine, settings, logger, deployment: 'd1', instance: 'i1', readyTimeoutMs: 1000, now });
  const pool = new WarmPool({ containers, size: 0, logger, retryMs: 50 });
  const removed: string[] = [];
  const sessions = new SessionManager({ containers, pool, settings, logger, now, onRemoved: (s, why) => removed.push(`${s.key.sessionId}:${s.ownerId}:${why}`) });
  const ping = (id: string, who = alice): Promise<unknown> => sessions.use(key(id), who, (s) => sessions.call(s, { op: 'ping' }, 1000));
  await ping('a');
  await ping('b', { ...alice, id: 'bob' });
  assert.deepEqual(removed, ['a:alice:evicted']);
  clock.t += 6000;
  sessions.reap();
  assert.deepEqual(removed, ['a:alice:evicted', 'b:bob:reaped']);
  await ping('c');
  sessions.destroy(key('c'));
  assert.deepEqual(removed.at(-1), 'c:alice:destroyed');
  await ping('d');
  sessions.closeAll();
  assert.equal(removed.length, 3, 'a service stop notifies nobody');
});

test('sessionRemovedNotice: reason, link, unique key per removal; none for a service-created session', () => {
  const n = sessionRemovedNotice(key('s/1'), 'alice', 'reaped', 42)!;
  assert.equal(n.kind, 'sandbox_session_removed');
  assert.equal(n.user_id, 'alice');
  assert.equal(n.tenant_id, 't');
  assert.deepEqual(n.payload, { session_id: 's/1', reason: 'reaped', link: '/chat/s%2F1' });
  assert.match(n.body!, /idle/);
  assert.equal(n.idempotency_key, 'sandbox:s/1:reaped:42');
  assert.notEqual(sessionRemovedNotice(key('s/1'), 'alice', 'reaped', 43)!.idempotency_key, n.idempotency_key);
  assert.equal(sessionRemovedNotice(key('x'), 'service:agent-runtime', 'evicted', 1), null);
});
