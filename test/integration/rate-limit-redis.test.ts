/**
 * Rate limits shared through Redis (spec: REDIS_URL "enables shared rate limiter"): two gateways
 * pointed at one real redis-server count one client together. Needs Debian's redis-server (CI
 * installs it); skipped with a message where it is absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as net from 'node:net';
import { request } from 'undici';
import { start } from '../../services/gateway/src/index.js';
import { startIssuer } from '../helpers/issuer.js';
import { startUpstream } from '../helpers/upstream.js';
import { gatewayConfig } from '../helpers/gateway-config.js';
import { freePort } from '../../main/supervisor/index.js';

const hasRedis = spawnSync('sh', ['-c', 'command -v redis-server']).status === 0;

test('two gateways share one per-IP limit through Redis', { skip: hasRedis ? false : 'redis-server is not installed' }, async (t) => {
  const port = await freePort('127.0.0.1');
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  t.after(() => { redis.kill('SIGTERM'); });
  // Wait until redis answers.
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const up = await startUpstream();
  const issuer = await startIssuer();
  const cfg = { rateLimitIpPerMinute: 3, redisUrl: `redis://127.0.0.1:${port}` };
  const a = await start(gatewayConfig(up.url, issuer.jwksUrl, cfg));
  const b = await start(gatewayConfig(up.url, issuer.jwksUrl, cfg));
  t.after(async () => { await a.close(); await b.close(); await up.close(); await issuer.close(); });
  const hit = async (p: number): Promise<number> => {
    const r = await request(`http://127.0.0.1:${p}/v1/auth/config`);
    await r.body.dump();
    return r.statusCode;
  };
  const statuses = [await hit(a.port), await hit(b.port), await hit(a.port), await hit(b.port), await hit(a.port)];
  assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
});
