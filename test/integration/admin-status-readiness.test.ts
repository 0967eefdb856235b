/**
 * Issue 12 item 8: when Docker or the sandbox image is missing, the sandbox reports it in `/readyz`,
 * in `GET /v1/admin/status` and in the UI, with the command that fixes it. The gateway's status now
 * carries each service's `readiness` (null when its `/readyz` answers 200, else the reason it gives).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { start as startGateway } from '../../services/gateway/src/index.js';
import { start as startSandbox } from '../../services/sandbox/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import type { GatewayStatus } from '../../services/gateway/src/contracts.js';
import { gatewayConfig, TEST_ISSUER } from '../helpers/gateway-config.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { startUpstream, type RecordingUpstream } from '../helpers/upstream.js';
import { sandboxConfig } from '../helpers/sandbox.js';
import { removeDir } from '../helpers/service-configs.js';

let issuer: TestIssuer;
let up: RecordingUpstream;
let sandbox: RunningService;
let sandboxDir: string;
let gw: RunningService;

before(async () => {
  issuer = await startIssuer();
  up = await startUpstream();
  // An image that does not exist: readiness must say so and name `npm run sandbox:image`.
  const scfg = sandboxConfig({ tenantId: 'acme', env: { SANDBOX_IMAGE: 'svc-sandbox:no-such-tag', SANDBOX_WARM_POOL: '0' } });
  sandboxDir = scfg.dataDir;
  sandbox = await startSandbox(scfg);
  const cfg = gatewayConfig(up.url, issuer.jwksUrl);
  gw = await startGateway({ ...cfg, serviceUrls: { ...cfg.serviceUrls, sandbox: `http://127.0.0.1:${sandbox.port}` } });
});
after(async () => { await gw.close(); await sandbox.close(); removeDir(sandboxDir); await up.close(); await issuer.close(); });

test('admin status names the not-ready sandbox with the fix; ready services carry null', async () => {
  const now = Math.floor(Date.now() / 1000);
  const admin = await issuer.mint({ iss: TEST_ISSUER, aud: 'svc-frontend', sub: 'admin-1', email: 'a@example.com', realm_access: { roles: ['admin'] }, iat: now, exp: now + 600, auth_method: 'password' });
  const r = await fetch(`http://127.0.0.1:${gw.port}/v1/admin/status`, { headers: { authorization: `Bearer ${admin}` } });
  assert.equal(r.status, 200);
  const body = await r.json() as GatewayStatus;
  const sb = body.services.find((s) => s.name === 'sandbox');
  assert.ok(sb, 'sandbox listed');
  assert.notEqual(sb.state, 'ready');
  assert.match(sb.readiness ?? '', /npm run sandbox:image/, `the reason names the fix: ${sb.readiness}`);
  const gateway = body.services.find((s) => s.name === 'gateway');
  assert.equal(gateway?.readiness, null);
});
