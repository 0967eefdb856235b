/**
 * Issue 19 items 1, 4, 5 in the browser: Admin › Topology draws every service as a node of the SVG
 * graph with its health and the transport each gRPC-split route used; Stack shows the versions; Services shows a log tail; Updates says what is
 * deployed and that the online check is not configured; Jobs says what it covers and lists a backup job.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SERVICE_NAMES } from '../../services/shared/services.js';
import { adminSession, shot } from './support.js';
import { ADMIN, callJson, login } from '../helpers/stack.js';

const { session: s, skip } = adminSession();

test('topology, stack, services, updates and jobs panels show the workstation', { skip, timeout: 120_000 }, async () => {
  await s.page.goto(`${s.stack.url}/admin/topology`);
  const nodes = s.page.getByTestId('topology-node');
  await nodes.nth(SERVICE_NAMES.length - 1).waitFor({ timeout: 15_000 });
  assert.equal(await nodes.count(), SERVICE_NAMES.length);
  assert.ok(await s.page.locator('svg line').count() > 10, 'edges are drawn');
  // Issue 20: a guard check through the gateway travels over gRPC, and the routes table says so.
  const guardToken = await login(s.stack.url, ADMIN.email, ADMIN.password);
  const guard = await callJson(s.stack.url, guardToken, 'POST', '/v1/guard/input', { content: 'What is the capital of France?', scope: { tenant_id: 'acme', user_id: 'someone' } });
  assert.equal(guard.status, 200);
  const guardRow = s.page.getByTestId('topology-routes').locator('tr[data-route="POST /v1/guard/input"]');
  await guardRow.and(s.page.locator('[data-last="grpc"]')).waitFor({ timeout: 15_000 });
  await shot(s.page, 'admin-topology');

  await s.page.goto(`${s.stack.url}/admin/stack`);
  await s.page.getByTestId('stack-panel').getByText(process.versions.node).waitFor({ timeout: 15_000 });
  await s.page.getByTestId('stack-panel').getByText('sqlite-vec').waitFor();

  await s.page.goto(`${s.stack.url}/admin/services`);
  const controls = s.page.getByTestId('services-controls');
  await controls.getByRole('button', { name: 'Show log tail' }).click();
  await s.page.getByTestId('log-tail').waitFor({ timeout: 10_000 });

  await s.page.goto(`${s.stack.url}/admin/updates`);
  await s.page.getByTestId('update-pending').getByText('nothing').waitFor({ timeout: 10_000 });
  await s.page.getByTestId('updates-panel').getByText(/not_configured/).waitFor();

  // A backup is a job (issue 19 item 5): the panel lists it with its kind, bytes and write pause.
  const token = await login(s.stack.url, ADMIN.email, ADMIN.password);
  assert.equal((await callJson(s.stack.url, token, 'POST', '/v1/admin/backups', { passphrase: 'panel passphrase 123' })).status, 201);
  await s.page.goto(`${s.stack.url}/admin/jobs`);
  await s.page.getByTestId('jobs-panel').getByText(/Covered: connector_sync.*backup/).waitFor({ timeout: 10_000 });
  const backupRow = s.page.locator('[data-testid="job-row"][data-kind="backup"]');
  await backupRow.first().waitFor({ timeout: 10_000 });
  await backupRow.first().getByText(/writes paused/).waitFor();
  await backupRow.first().getByText(/MiB/).waitFor();
  assert.deepEqual(s.errors, []);
});
