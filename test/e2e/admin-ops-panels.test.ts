/**
 * Issue 19 items 1, 4, 5 in the browser: Admin › Topology draws every service as a node of the SVG
 * graph with its health; Stack shows the versions; Services shows a log tail; Updates says what is
 * deployed and that the online check is not configured; Jobs says what it covers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SERVICE_NAMES } from '../../services/shared/services.js';
import { adminSession, shot } from './support.js';

const { session: s, skip } = adminSession();

test('topology, stack, services, updates and jobs panels show the workstation', { skip, timeout: 120_000 }, async () => {
  await s.page.goto(`${s.stack.url}/admin/topology`);
  const nodes = s.page.getByTestId('topology-node');
  await nodes.nth(SERVICE_NAMES.length - 1).waitFor({ timeout: 15_000 });
  assert.equal(await nodes.count(), SERVICE_NAMES.length);
  assert.ok(await s.page.locator('svg line').count() > 10, 'edges are drawn');
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

  await s.page.goto(`${s.stack.url}/admin/jobs`);
  await s.page.getByTestId('jobs-panel').getByText(/Covered: connector_sync/).waitFor({ timeout: 10_000 });
  assert.deepEqual(s.errors, []);
});
