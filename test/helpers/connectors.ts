/**
 * Helpers of the connector tests (issue 18 item 3): run a sync through the gateway and wait for its
 * job; search knowledge as a user.
 */
import assert from 'node:assert/strict';
import { callJson } from './stack.js';

/** Run a sync of `id` and wait for its job to finish. */
export async function syncAndWait(url: string, token: string, id: string): Promise<{ state: string; progress: { total: number; done: number; failed: number } }> {
  const started = await callJson(url, token, 'POST', '/v1/admin/context/sync', { connector_id: id });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  for (let i = 0; i < 600; i++) {
    const j = await callJson(url, token, 'GET', `/v1/admin/context/sync/${started.body.job_id}`);
    assert.equal(j.status, 200);
    if (j.body.state === 'succeeded' || j.body.state === 'failed') return j.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('sync did not finish');
}

/** Titles and contents of search hits for `query` as `token`. */
export async function search(url: string, token: string, query: string): Promise<string[]> {
  const r = await callJson(url, token, 'POST', '/v1/knowledge/search', { query, limit: 20, score_threshold: 0 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.results as Array<{ content: string }>).map((x) => x.content);
}

