/**
 * Issue 19 items 1, 4, 5 in the browser: Admin › Topology draws every service as a node of the SVG
 * graph with its health; Stack shows the versions; Services shows a log tail; Updates says what is
 * deployed and that the online check is not configured; Jobs says what it covers.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { TestStack } from '../helpers/stack.js';
import { SERVICE_NAMES } from '../../services/shared/services.js';
import { haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

const skipAll = !haveChromium();
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];

before(async () => {
  if (skipAll) return;
  stack = await startE2E();
  browser = await launch();
  ({ page, errors } = await newPage(browser));
  await signIn(page, stack.url);
});

after(async () => {
  if (skipAll) return;
  await browser?.close();
  await stack?.stop();
});

test('topology, stack, services, updates and jobs panels show the workstation', { skip: skipAll, timeout: 120_000 }, async () => {
  await page.goto(`${stack.url}/admin/topology`);
  const nodes = page.getByTestId('topology-node');
  await nodes.nth(SERVICE_NAMES.length - 1).waitFor({ timeout: 15_000 });
  assert.equal(await nodes.count(), SERVICE_NAMES.length);
  assert.ok(await page.locator('svg line').count() > 10, 'edges are drawn');
  await shot(page, 'admin-topology');

  await page.goto(`${stack.url}/admin/stack`);
  await page.getByTestId('stack-panel').getByText(process.versions.node).waitFor({ timeout: 15_000 });
  await page.getByTestId('stack-panel').getByText('sqlite-vec').waitFor();

  await page.goto(`${stack.url}/admin/services`);
  const controls = page.getByTestId('services-controls');
  await controls.getByRole('button', { name: 'Show log tail' }).click();
  await page.getByTestId('log-tail').waitFor({ timeout: 10_000 });

  await page.goto(`${stack.url}/admin/updates`);
  await page.getByTestId('update-pending').getByText('nothing').waitFor({ timeout: 10_000 });
  await page.getByTestId('updates-panel').getByText(/not_configured/).waitFor();

  await page.goto(`${stack.url}/admin/jobs`);
  await page.getByTestId('jobs-panel').getByText(/Covered: connector_sync/).waitFor({ timeout: 10_000 });
  assert.deepEqual(errors, []);
});
