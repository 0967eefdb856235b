/**
 * The runtime's integration routes on PostgreSQL over HTTP (issue 21 item 1): with `database` set,
 * the runtime answers agents (scope rules, a chat that runs one), skills (versions, a name taken),
 * MCP servers and opt-outs, plugins, signed webhook deliveries (a replay refused, the delivery log,
 * rotation), connectors and OAuth providers from the `agent_runtime` schema, and creates no SQLite
 * file. The store contract itself: agent-runtime-integrations-store-postgres.test.ts. Skips when
 * PostgreSQL is absent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '../../services/agent-runtime/src/domain/webhooks/verify.js';
import type { AgentRuntimeSettings } from '../../services/agent-runtime/src/contracts.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startHarness, type Harness } from '../helpers/runtime-harness.js';

describe('the integration routes on PostgreSQL over HTTP', { skip: postgresMissing() ?? false }, () => {
  let pg: TestPostgres;
  let h: Harness;
  let folder: string;
  const ADMIN = { id: 'admin-1', roles: ['admin', 'user'] };

  before(async () => {
    pg = await startPostgres();
    folder = mkdtempSync(join(tmpdir(), 'runtime-conn-'));
    writeFileSync(join(folder, 'a.md'), '# A\n');
    const database = { url: pg.url, schema: 'agent_runtime' };
    h = await startHarness({ titleGeneration: false, ...({ database } as unknown as Partial<AgentRuntimeSettings>) }, {
      script: (r) => ({ content: `system said: ${(r.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'system').map((m) => String(m.content)).join(' | ').includes('MARKER-PG-42') ? 'marker' : 'none'}` }),
    });
  });
  after(async () => {
    await h?.close();
    await pg?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  test('agents, skills, MCP, plugins, webhooks, connectors and OAuth answer from PostgreSQL; no agent-runtime.sqlite', async () => {
    assert.equal((await fetch(`${h.url}/readyz`)).status, 200);
    // Agents: scope rules, and a chat that runs one (the catalog resolves it from PostgreSQL).
    assert.equal((await h.call('POST', '/v1/agents', { name: 'Team', scope: 'tenant' })).status, 403);
    const team = await h.call('POST', '/v1/agents', { name: 'Team', scope: 'tenant' }, ADMIN);
    assert.equal(team.status, 201, JSON.stringify(team.body));
    const mine = await h.call('POST', '/v1/agents', { name: 'Mine', instructions: 'Say MARKER-PG-42.' });
    assert.equal(mine.status, 201, JSON.stringify(mine.body));
    const agentId = (mine.body as { id: string }).id;
    const list = (await h.call('GET', '/v1/agents')).body as { items: Array<{ id: string }> };
    assert.deepEqual(list.items.map((a) => a.id), ['default', (team.body as { id: string }).id, agentId]);
    assert.equal((await h.call('GET', `/v1/agents/${agentId}`, undefined, { id: 'user-2' })).status, 404);
    const chat = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'hi' }], agent_id: agentId });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    assert.match(JSON.stringify(chat.body), /system said: marker/);
    assert.equal((await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'hi' }], agent_id: agentId }, { id: 'user-2' })).status, 404);
    assert.equal((await h.call('PATCH', `/v1/agents/${agentId}`, { description: 'd' })).status, 200);
    assert.equal((await h.call('DELETE', `/v1/agents/${agentId}`)).status, 204);
    assert.equal((await h.call('DELETE', `/v1/agents/${agentId}`)).status, 404);

    // Skills: versions, a name taken in the same scope.
    const skill = await h.call('POST', '/v1/skills', { name: 'nda', description: 'NDA review', content: '# v1' });
    assert.equal(skill.status, 201, JSON.stringify(skill.body));
    const sid = (skill.body as { id: string }).id;
    const taken = await h.call('POST', '/v1/skills', { name: 'nda', description: 'again', content: '# x' });
    assert.equal(taken.status, 409);
    assert.equal((taken.body as { code: string }).code, 'skill_name_taken');
    assert.equal(((await h.call('PUT', `/v1/skills/${sid}`, { content: '# v2' })).body as { version: number }).version, 2);
    assert.deepEqual(((await h.call('GET', `/v1/skills/${sid}/versions`)).body as { items: Array<{ version: number }> }).items.map((v) => v.version), [2, 1]);

    // MCP servers, opt-outs and plugins.
    const server = await h.call('POST', '/v1/admin/mcp-servers', { name: 'files', transport: 'stdio', command: 'true' }, ADMIN);
    assert.equal(server.status, 201, JSON.stringify(server.body));
    const mid = (server.body as { id: string }).id;
    assert.equal(((await h.call('PUT', `/v1/user/mcp-servers/${mid}/opt-out`, { opted_out: true })).body as { opted_out: boolean }).opted_out, true);
    const mineMcp = (await h.call('GET', '/v1/user/mcp-servers')).body as { items: Array<{ id: string; opted_out: boolean }> };
    assert.deepEqual(mineMcp.items.map((x) => [x.id, x.opted_out]), [[mid, true]]);
    assert.equal((await h.call('PUT', '/v1/admin/plugins/sandbox', { roles: ['dev'] }, ADMIN)).status, 200);
    const seen = (await h.call('GET', '/v1/user/plugins')).body as { items: Array<{ id: string }> };
    assert.ok(!seen.items.some((p) => p.id === 'sandbox'), 'a plugin limited to another role is not listed');
    assert.ok(seen.items.some((p) => p.id === 'builtin'));
    assert.equal((await h.call('DELETE', `/v1/admin/mcp-servers/${mid}`, undefined, ADMIN)).status, 204);

    // Webhooks: a signed delivery, its replay, the delivery log.
    const hook = await h.call('POST', '/v1/admin/webhooks', { name: 'ci', target: { kind: 'notification', user_id: 'user-1' } }, ADMIN);
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const { id: hookId, secret } = hook.body as { id: string; secret: string };
    const body = JSON.stringify({ build: 'green' });
    const ts = String(Math.floor(Date.now() / 1000));
    const deliver = (): Promise<Response> => fetch(`${h.url}/v1/webhook/${hookId}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-timestamp': ts, 'x-svc-signature': `sha256=${signWebhook(secret, ts, body)}` }, body,
    });
    const first = await deliver();
    assert.equal(first.status, 202, await first.clone().text());
    assert.ok(((await first.json()) as { notification_id?: string }).notification_id);
    const replay = await deliver();
    assert.equal(replay.status, 409);
    const deliveries = (await h.call('GET', `/v1/admin/webhooks/${hookId}/deliveries`, undefined, ADMIN)).body as { deliveries: Array<{ outcome: string; code?: string }> };
    assert.deepEqual(deliveries.deliveries.map((d) => d.outcome).sort(), ['accepted', 'rejected']);
    assert.equal((await h.call('POST', `/v1/admin/webhooks/${hookId}/rotate`, undefined, ADMIN)).status, 200);

    // Connectors and OAuth providers.
    const conn = await h.call('POST', '/v1/admin/context/connectors', { kind: 'folder', name: 'docs', config: { path: folder } }, ADMIN);
    assert.equal(conn.status, 201, JSON.stringify(conn.body));
    assert.equal(((await h.call('GET', '/v1/admin/context/connectors', undefined, ADMIN)).body as { connectors: unknown[] }).connectors.length, 1);
    assert.deepEqual((await h.call('GET', '/v1/admin/oauth-providers', undefined, ADMIN)).body, { providers: [] });
    assert.equal((await h.call('GET', '/v1/oauth/github/status')).status, 404);

    const count = async (table: string): Promise<number> => (await pg.sql<{ n: number }>(`SELECT count(*)::int AS n FROM agent_runtime.${table}`))[0]!.n;
    assert.equal(await count('agents'), 1, 'the tenant agent is in PostgreSQL (the personal one deleted)');
    assert.equal(await count('skill_versions'), 2);
    assert.equal(await count('webhook_deliveries'), 2);
    assert.equal(await count('webhook_replays'), 1);
    assert.equal(await count('plugin_visibility'), 1);
    assert.equal(await count('connectors'), 1);
    assert.equal(await count('mcp_servers'), 0);
    const dbDir = h.cfg.dbDir;
    assert.ok(!existsSync(join(dbDir, 'agent-runtime.sqlite')), `no runtime SQLite file (dbDir holds ${existsSync(dbDir) ? readdirSync(dbDir).join(', ') : 'nothing'})`);
  });
});
