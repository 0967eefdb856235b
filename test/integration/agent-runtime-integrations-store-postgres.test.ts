/**
 * The runtime's integration stores on PostgreSQL (issue 21 item 1): the SAME sequence of port calls
 * against the SQLite facade (`openRuntimeStore`) and the PostgreSQL table groups
 * (store/pg/integrations.ts over migrations/agent-runtime/pg/0002_integrations.sql) gives the same
 * answers, group by group: agents, skills (name conflicts, versions), MCP servers (ordering,
 * opt-outs, delete), MCP OAuth records (state lookup), plugin rules, OAuth providers, flows
 * (single use, latest flow tie-break, prune) and connections (upsert, expiry order), webhooks
 * (secret rotation, deliveries kept, replay window), connectors (NOCASE order, upsert columns,
 * documents, jobs, NULL connector). Transactions roll back on throw on both engines, and a name
 * conflict inside a transaction leaves the rest of it to commit. The routes over HTTP:
 * agent-runtime-integrations-http-postgres.test.ts. Skips when PostgreSQL is absent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AsyncTransactor } from '../../services/shared/db/async-store.js';
import { openPgStore } from '../../services/shared/db/pg/store.js';
import { openRuntimeStore, type RuntimeStore } from '../../services/agent-runtime/src/store/runtime-store.js';
import { pgIntegrationTables } from '../../services/agent-runtime/src/store/pg/integrations.js';
import type { AgentStore } from '../../services/agent-runtime/src/domain/agents/ports.js';
import type { SkillRow, SkillStore } from '../../services/agent-runtime/src/domain/skills/ports.js';
import type { McpServerRow, McpServerStore } from '../../services/agent-runtime/src/domain/mcp/ports.js';
import type { McpOAuthRowStore } from '../../services/agent-runtime/src/domain/mcp/oauth-vault.js';
import type { PluginRuleStore } from '../../services/agent-runtime/src/domain/mcp/plugins.js';
import type { OAuthConnectionRow, OAuthStateRow, OAuthStore } from '../../services/agent-runtime/src/domain/oauth/ports.js';
import type { WebhookRow, WebhookStore } from '../../services/agent-runtime/src/domain/webhooks/ports.js';
import type { ConnectorRow, ConnectorStore, JobRow } from '../../services/agent-runtime/src/domain/connectors/ports.js';
import { REPO_ROOT } from '../helpers/audit.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MIGRATIONS = join(REPO_ROOT, 'migrations');
const T = 'acme';

/** What the sequences use of a facade (both engines satisfy it). */
interface Groups {
  agents: AgentStore; skills: SkillStore; mcpServers: McpServerStore; mcpOAuth: McpOAuthRowStore; pluginRules: PluginRuleStore;
  oauth: OAuthStore; webhooks: WebhookStore; connectors: ConnectorStore; txAsync: AsyncTransactor;
}

/** Records every answer of a sequence (Sets as sorted arrays). */
class Log {
  readonly entries: Array<[string, unknown]> = [];
  async at(label: string, v: unknown): Promise<void> {
    const value = await v;
    this.entries.push([label, value instanceof Set ? [...value].sort() : value]);
  }
}

const at = (n: number): string => new Date(Date.UTC(2026, 10, 24, 10, 0, n)).toISOString();

async function agentsSequence(s: Groups, log: Log): Promise<void> {
  const row = (id: string, owner: string, scope: 'personal' | 'tenant', name: string): Parameters<AgentStore['put']>[0] => ({
    id, tenant_id: T, owner_id: owner, scope, name, config: { description: `d-${id}`, instructions: '', tools: ['a'], model_role: null, model: null, knowledge: null, memory_scope: 'user', guardrail_policy: null, tool_approval: 'auto' },
    created_at: at(1), updated_at: at(1),
  });
  for (const r of [row('a1', 'adm', 'tenant', 'beta'), row('a2', 'alice', 'personal', 'Alpha'), row('a3', 'alice', 'personal', 'alpha'), row('a4', 'bob', 'personal', 'zed'), row('a5', 'adm', 'tenant', '_under'), row('a6', 'adm', 'tenant', 'Zulu')]) await s.agents.put(r);
  await log.at('agents.visible alice', s.agents.visible(T, 'alice'));
  await log.at('agents.visible bob', s.agents.visible(T, 'bob'));
  await s.agents.put({ ...row('a1', 'someone-else', 'personal', 'beta v2'), created_at: at(9), updated_at: at(2) });
  await log.at('agents.get after upsert (owner, scope, created_at kept)', s.agents.get(T, 'a1'));
  await log.at('agents.get other tenant', s.agents.get('other', 'a1'));
  await log.at('agents.delete', s.agents.delete(T, 'a2'));
  await log.at('agents.delete again', s.agents.delete(T, 'a2'));
  await log.at('agents.visible alice after', s.agents.visible(T, 'alice'));
}

async function skillsSequence(s: Groups, log: Log): Promise<void> {
  const row = (id: string, owner: string, scope: 'personal' | 'tenant', name: string, version = 1): SkillRow => ({
    id, tenant_id: T, owner_id: owner, scope, name, description: `about ${name}`, content: `# ${name} v${version}`, version, sha256: `h${id}${version}`,
    files: version > 1 ? [{ path: 'a.md', content: 'A' }] : [], created_at: at(1), updated_at: at(version),
  });
  await log.at('skills.save s1', s.skills.save(row('s1', 'adm', 'tenant', 'nda'), 'adm'));
  await log.at('skills.save s2 personal same name', s.skills.save(row('s2', 'alice', 'personal', 'nda'), 'alice'));
  await log.at('skills.save s3 tenant name taken', s.skills.save(row('s3', 'adm2', 'tenant', 'nda'), 'adm2'));
  await log.at('skills.save s4 alice name taken', s.skills.save(row('s4', 'alice', 'personal', 'nda'), 'alice'));
  await log.at('skills.save s5 bob same name', s.skills.save(row('s5', 'bob', 'personal', 'nda'), 'bob'));
  await log.at('skills.save s6', s.skills.save(row('s6', 'adm', 'tenant', 'Memo'), 'adm'));
  await log.at('skills.get s3 (refused, absent)', s.skills.get(T, 's3'));
  await log.at('skills.save s1 v2', s.skills.save(row('s1', 'adm', 'tenant', 'nda', 2), 'adm'));
  await log.at('skills.save s6 renamed onto nda (taken)', s.skills.save({ ...row('s6', 'adm', 'tenant', 'nda', 2) }, 'adm'));
  await log.at('skills.get s6 unchanged', s.skills.get(T, 's6'));
  await log.at('skills.visible alice', s.skills.visible(T, 'alice'));
  await log.at('skills.versions s1', s.skills.versions(T, 's1'));
  await log.at('skills.delete s1', s.skills.delete(T, 's1'));
  await log.at('skills.versions s1 gone', s.skills.versions(T, 's1'));
  await log.at('skills.delete s1 again', s.skills.delete(T, 's1'));
}

async function mcpSequence(s: Groups, log: Log): Promise<void> {
  const row = (id: string, owner: string, name: string): McpServerRow => ({
    id, tenant_id: T, owner_id: owner, name, transport: owner ? 'streamable_http' : 'stdio', command: owner ? null : 'node', args_json: '["x"]', env_json: '{"K":"${secret:K}"}',
    url: owner ? 'https://mcp.example/x' : null, headers_json: '{}', trusted: owner ? 0 : 1, oauth_client_json: owner ? null : '{"client_id":"c"}', created_by: 'adm', created_at: at(1), updated_at: at(1),
  });
  for (const r of [row('m1', '', 'tools'), row('m2', '', 'Alpha'), row('m3', 'alice', 'mine'), row('m4', 'bob', 'his'), row('m0', '', 'tools')]) await s.mcpServers.insert(r);
  await log.at('mcp.list tenant', s.mcpServers.list(T, null));
  await log.at('mcp.list alice', s.mcpServers.list(T, 'alice'));
  await log.at('mcp.listAll', s.mcpServers.listAll());
  await s.mcpServers.update({ ...row('m1', '', 'tools v2'), trusted: 0, created_by: 'ignored', updated_at: at(3) });
  await log.at('mcp.get after update', s.mcpServers.get(T, 'm1'));
  await s.mcpServers.setOptOut(T, 'alice', 'm1', true, at(4));
  await s.mcpServers.setOptOut(T, 'alice', 'm1', true, at(5));
  await s.mcpServers.setOptOut(T, 'alice', 'm2', true, at(5));
  await log.at('mcp.optOuts', s.mcpServers.optOuts(T, 'alice'));
  await s.mcpServers.setOptOut(T, 'alice', 'm2', false, at(6));
  await log.at('mcp.optOuts after opt-in', s.mcpServers.optOuts(T, 'alice'));
  // MCP OAuth records ride on the server rows (FK, cascade).
  const rec = { tenant_id: T, user_id: 'alice', server_id: 'm1', state: 'st-1', state_expires_at: 1_800_000_000_123, authorized: 0, key_id: 'k1', iv: Buffer.from([1, 2]), tag: Buffer.from([3]), ciphertext: Buffer.from('sealed'), updated_at: at(7) };
  await s.mcpOAuth.put(rec);
  await log.at('mcpOAuth.get', s.mcpOAuth.get(T, 'alice', 'm1'));
  await log.at('mcpOAuth.byState', s.mcpOAuth.byState('st-1'));
  await s.mcpOAuth.put({ ...rec, state: null, state_expires_at: null, authorized: 1, ciphertext: Buffer.from('sealed-2'), updated_at: at(8) });
  await log.at('mcpOAuth.byState used', s.mcpOAuth.byState('st-1'));
  await log.at('mcpOAuth.get upserted', s.mcpOAuth.get(T, 'alice', 'm1'));
  await s.mcpOAuth.put({ ...rec, server_id: 'm2', state: 'st-2' });
  await log.at('mcpOAuth duplicate state refused', Promise.resolve().then(() => s.mcpOAuth.put({ ...rec, server_id: 'm0', state: 'st-2' })).then(() => 'stored', () => 'refused'));
  await s.mcpOAuth.delete(T, 'alice', 'm2');
  await log.at('mcpOAuth.get deleted', s.mcpOAuth.get(T, 'alice', 'm2'));
  await log.at('mcp.delete m1', s.mcpServers.delete(T, 'm1'));
  await log.at('mcp.delete m1 again', s.mcpServers.delete(T, 'm1'));
  await log.at('mcp.optOuts after delete', s.mcpServers.optOuts(T, 'alice'));
  await log.at('mcpOAuth cascaded with the server', s.mcpOAuth.get(T, 'alice', 'm1'));
  await s.pluginRules.put(T, { plugin: 'sandbox', roles: ['dev'], groups: [] }, at(1), 'adm');
  await s.pluginRules.put(T, { plugin: 'mcp:m2', roles: [], groups: ['g1', 'g2'] }, at(1), null);
  await s.pluginRules.put(T, { plugin: 'builtin', roles: ['x'], groups: [] }, at(1), 'adm');
  await s.pluginRules.put(T, { plugin: 'sandbox', roles: ['dev', 'ops'], groups: ['g'] }, at(2), 'adm');
  await s.pluginRules.put(T, { plugin: 'builtin', roles: [], groups: [] }, at(3), 'adm');
  await log.at('pluginRules.list', (async () => [...await s.pluginRules.list(T)].sort((a, b) => a.plugin.localeCompare(b.plugin)))());
  await log.at('pluginRules.list other tenant', s.pluginRules.list('other'));
}

async function oauthSequence(s: Groups, log: Log): Promise<void> {
  const provider = (slug: string, name: string): Parameters<OAuthStore['insertProvider']>[0] => ({
    tenant_id: T, slug, name, issuer: null, authorization_endpoint: `https://${slug}/auth`, token_endpoint: `https://${slug}/token`, revocation_endpoint: null,
    client_id: 'cid', client_secret_ref: 'SECRET', scopes_json: '["a","b"]', created_at: at(1), updated_at: at(1),
  });
  await log.at('oauth.insertProvider gh', s.oauth.insertProvider(provider('gh', 'GitHub')));
  await log.at('oauth.insertProvider gh again', s.oauth.insertProvider(provider('gh', 'Other')));
  await log.at('oauth.insertProvider box', s.oauth.insertProvider(provider('box', 'Box')));
  await s.oauth.updateProvider({ ...provider('gh', 'GitHub 2'), revocation_endpoint: 'https://gh/revoke', created_at: at(9), updated_at: at(2) });
  await log.at('oauth.providers', s.oauth.providers(T));
  const st = (hash: string, created: string, expires: string): OAuthStateRow => ({
    state_hash: hash, tenant_id: T, user_id: 'alice', slug: 'gh', code_verifier: `v-${hash}`, redirect_uri: 'https://ws/cb', created_at: created, expires_at: expires, used_at: null, outcome: null, error: null,
  });
  await s.oauth.putState(st('h1', at(1), at(2)));
  await s.oauth.putState(st('h2', at(5), at(50)));
  await s.oauth.putState(st('h3', at(5), at(50)));
  await log.at('oauth.latestState (tie on created_at: the later insert)', s.oauth.latestState(T, 'alice', 'gh'));
  await log.at('oauth.useState', s.oauth.useState('h3', at(6)));
  await log.at('oauth.useState again', s.oauth.useState('h3', at(7)));
  await s.oauth.finishState('h3', 'failed', 'oauth_exchange_failed');
  await log.at('oauth.state', s.oauth.state('h3'));
  await s.oauth.pruneStates(at(3));
  await log.at('oauth.state pruned', s.oauth.state('h1'));
  await log.at('oauth.state kept', s.oauth.state('h2'));
  const conn = (user: string, slug: string, expires: string | null): OAuthConnectionRow => ({
    tenant_id: T, user_id: user, slug, status: 'connected', scopes_json: '["a"]', key_id: 'k1', iv: Buffer.from([9, 8, 7]), tag: Buffer.from([6]), ciphertext: Buffer.from('tok'),
    expires_at: expires, lifetime_s: expires ? 3600 : null, connected_at: at(1), last_refreshed_at: null, updated_at: at(1),
  });
  await s.oauth.putConnection(conn('alice', 'gh', at(40)));
  await s.oauth.putConnection(conn('alice', 'box', at(30)));
  await s.oauth.putConnection(conn('bob', 'gh', null));
  await s.oauth.putConnection(conn('carol', 'gh', at(30)));
  await s.oauth.putConnection({ ...conn('alice', 'gh', at(45)), last_refreshed_at: at(44), ciphertext: Buffer.from('tok2'), updated_at: at(44) });
  await log.at('oauth.expiring', s.oauth.expiring(10));
  await log.at('oauth.expiring limit', s.oauth.expiring(1));
  await s.oauth.setStatus(T, 'carol', 'gh', 'needs_reconnect', at(46));
  await log.at('oauth.connection', s.oauth.connection(T, 'carol', 'gh'));
  await log.at('oauth.expiring after needs_reconnect', s.oauth.expiring(10));
  await log.at('oauth.connectionsOf', s.oauth.connectionsOf(T, 'alice'));
  await log.at('oauth.deleteConnection', s.oauth.deleteConnection(T, 'alice', 'box'));
  await log.at('oauth.deleteConnection again', s.oauth.deleteConnection(T, 'alice', 'box'));
  await log.at('oauth.deleteProvider', s.oauth.deleteProvider(T, 'gh'));
  await log.at('oauth.deleteProvider again', s.oauth.deleteProvider(T, 'gh'));
  await log.at('oauth.state gone with provider', s.oauth.state('h2'));
  await log.at('oauth.connectionsOf after provider delete', s.oauth.connectionsOf(T, 'alice'));
}

async function webhooksSequence(s: Groups, log: Log): Promise<void> {
  const hook = (id: string, created: string): WebhookRow => ({
    id, tenant_id: T, name: `hook ${id}`, target: { kind: 'notification', user_id: 'alice' } as WebhookRow['target'], owner_id: 'adm', owner_roles: ['admin'], owner_groups: ['g'],
    key_id: 'k1', secret_iv: Buffer.from([1]), secret_tag: Buffer.from([2]), secret_ct: Buffer.from('ct'), secret_set_at: created, created_at: created,
  });
  await s.webhooks.put(hook('wh_b', at(2)));
  await s.webhooks.put(hook('wh_a', at(2)));
  await s.webhooks.put(hook('wh_c', at(1)));
  await log.at('webhooks.list', s.webhooks.list(T));
  await log.at('webhooks.setSecret', s.webhooks.setSecret(T, 'wh_a', { key_id: 'k2', secret_iv: Buffer.from([7]), secret_tag: Buffer.from([8]), secret_ct: Buffer.from('new'), secret_set_at: at(3) }));
  await log.at('webhooks.setSecret absent', s.webhooks.setSecret(T, 'wh_x', { key_id: 'k2', secret_iv: Buffer.from([7]), secret_tag: Buffer.from([8]), secret_ct: Buffer.from('new'), secret_set_at: at(3) }));
  await log.at('webhooks.get', s.webhooks.get(T, 'wh_a'));
  for (const [i, id] of ['d1', 'd2', 'd3', 'd4'].entries()) {
    await s.webhooks.addDelivery({ id, tenant_id: T, hook_id: 'wh_a', received_at: at(10 + (i >> 1)), outcome: i % 2 ? 'rejected' : 'accepted', code: i % 2 ? 'webhook_replayed' : null, turn_id: i === 0 ? 't1' : null, notification_id: null }, 3);
  }
  await log.at('webhooks.deliveries (newest 3 kept)', s.webhooks.deliveries(T, 'wh_a', 10));
  await log.at('webhooks.deliveries limit', s.webhooks.deliveries(T, 'wh_a', 1));
  await log.at('webhooks.remember new', s.webhooks.remember('wh_a', 'sig1', 1000, 2000));
  await log.at('webhooks.remember replay', s.webhooks.remember('wh_a', 'sig1', 1500, 2500));
  await log.at('webhooks.remember other hook', s.webhooks.remember('wh_b', 'sig1', 1500, 2500));
  await log.at('webhooks.remember after expiry', s.webhooks.remember('wh_a', 'sig1', 2000, 3000));
  await log.at('webhooks.remember within new window', s.webhooks.remember('wh_a', 'sig1', 2999, 4000));
  await s.webhooks.forget('wh_a', 'sig1');
  await log.at('webhooks.remember after forget', s.webhooks.remember('wh_a', 'sig1', 3000, 4000));
  await log.at('webhooks.delete', s.webhooks.delete(T, 'wh_a'));
  await log.at('webhooks.delete again', s.webhooks.delete(T, 'wh_a'));
  await log.at('webhooks.deliveries after delete', s.webhooks.deliveries(T, 'wh_a', 10));
  await log.at('webhooks.remember after delete (replays gone)', s.webhooks.remember('wh_a', 'sig1', 3000, 4000));
}

async function connectorsSequence(s: Groups, log: Log): Promise<void> {
  const c = (id: string, name: string, schedule: number | null): ConnectorRow => ({
    id, tenant_id: T, kind: 'folder', name, config: { path: `/data/${id}` }, visibility_mode: 'restricted', audience_tags: ['x'], user_grants: ['bob'], schedule_minutes: schedule,
    selected: null, owner: { id: 'adm', roles: ['admin'], groups: [] }, status: 'idle', last_sync_at: null, last_error: null, created_at: at(1), updated_at: at(1),
  });
  for (const r of [c('c1', 'beta', 5), c('c2', 'Alpha', null), c('c3', 'alpha', 10), c('c0', 'Zeta', null)]) await s.connectors.put(r);
  await log.at('connectors.list', s.connectors.list(T));
  await log.at('connectors.scheduled', s.connectors.scheduled());
  await s.connectors.setStatus(T, 'c1', 'error', 'boom', at(5));
  // An upsert changes the configuration, not the owner or the sync state.
  await s.connectors.put({ ...c('c1', 'beta 2', null), selected: ['INBOX'], owner: { id: 'x', roles: [], groups: [] }, status: 'syncing', last_sync_at: at(9), last_error: null, created_at: at(8), updated_at: at(6) });
  await log.at('connectors.get after upsert', s.connectors.get(T, 'c1'));
  const doc = (path: string, item: string, size: number | null): Parameters<ConnectorStore['putDocument']>[0] => ({
    tenant_id: T, connector_id: 'c1', path_or_uid: path, item_key: item, document_id: `doc-${path}`, status: 'indexed', last_error: null, size, mtime_ms: size === null ? null : 1_732_000_000_123, sha256: 'ab', synced_at: at(7),
  });
  await s.connectors.putDocument(doc('b.txt', 'b.txt', 10));
  await s.connectors.putDocument(doc('a.txt', 'a.txt', 5_000_000_000));
  await s.connectors.putDocument(doc('INBOX/1/7#1:x.pdf', 'INBOX/1/7', null));
  await s.connectors.putDocument(doc('INBOX/1/7', 'INBOX/1/7', null));
  await s.connectors.putDocument({ ...doc('b.txt', 'b.txt', 11), status: 'failed', last_error: 'parse', document_id: null });
  await log.at('connectors.documents', s.connectors.documents(T, 'c1'));
  await s.connectors.deleteItem(T, 'c1', 'INBOX/1/7');
  await log.at('connectors.documents after deleteItem', s.connectors.documents(T, 'c1'));
  const job = (id: string, connector: string | null, state: JobRow['state'], created: string): JobRow => ({
    id, tenant_id: T, connector_id: connector, state, total: 0, done: 0, failed: 0, started_at: null, finished_at: null, error: null, created_at: created,
  });
  await s.connectors.putJob(job('j1', 'c1', 'succeeded', at(1)));
  await s.connectors.putJob(job('j2', null, 'queued', at(2)));
  await s.connectors.putJob(job('j3', 'c1', 'queued', at(3)));
  await s.connectors.putJob(job('j4', 'c1', 'running', at(2)));
  await s.connectors.putJob({ ...job('j3', 'c2', 'running', at(9)), total: 4, done: 2, failed: 1, started_at: at(4) });
  await log.at('connectors.job', s.connectors.job(T, 'j3'));
  await log.at('connectors.jobs', s.connectors.jobs(T, 10));
  await log.at('connectors.jobs limit', s.connectors.jobs(T, 2));
  await log.at('connectors.unfinishedJobs', s.connectors.unfinishedJobs());
  await log.at('connectors.activeJob all', s.connectors.activeJob(T, null));
  await log.at('connectors.activeJob c1', s.connectors.activeJob(T, 'c1'));
  await log.at('connectors.activeJob c3', s.connectors.activeJob(T, 'c3'));
  // A cancel wins: a later progress or success write of a cancelled job is ignored, on both engines.
  await s.connectors.putJob(job('j5', 'c1', 'cancelled', at(5)));
  await s.connectors.putJob({ ...job('j5', 'c1', 'running', at(5)), done: 3 });
  await s.connectors.putJob({ ...job('j5', 'c1', 'succeeded', at(5)), done: 4 });
  const j5 = await s.connectors.job(T, 'j5');
  assert.equal(j5?.state, 'cancelled');
  assert.equal(j5?.done, 0);
  await log.at('connectors.job cancelled stays', j5);
  await s.connectors.deleteDocuments(T, 'c1');
  await log.at('connectors.documents after deleteDocuments', s.connectors.documents(T, 'c1'));
  await log.at('connectors.delete', s.connectors.delete(T, 'c1'));
  await log.at('connectors.delete again', s.connectors.delete(T, 'c1'));
  await log.at('connectors.list after delete', s.connectors.list(T));
}

async function transactionsSequence(s: Groups, log: Log): Promise<void> {
  const agent = (id: string): Parameters<AgentStore['put']>[0] => ({
    id, tenant_id: 'tx', owner_id: 'u', scope: 'personal', name: id,
    config: { description: '', instructions: '', tools: [], model_role: null, model: null, knowledge: null, memory_scope: 'user', guardrail_policy: null, tool_approval: 'auto' }, created_at: at(1), updated_at: at(1),
  });
  const thrown = await s.txAsync(async () => {
    await s.agents.put(agent('rolled-back'));
    await s.webhooks.addDelivery({ id: 'tx-d', tenant_id: 'tx', hook_id: 'h', received_at: at(1), outcome: 'accepted', code: null, turn_id: null, notification_id: null }, 5);
    throw new Error('boom');
  }).then(() => 'committed', (err: Error) => err.message);
  await log.at('tx thrown', thrown);
  await log.at('tx rolled back (agent)', s.agents.get('tx', 'rolled-back'));
  await log.at('tx rolled back (delivery)', s.webhooks.deliveries('tx', 'h', 5));
  const skill = (id: string): SkillRow => ({
    id, tenant_id: 'tx', owner_id: 'u', scope: 'personal', name: 'same', description: '', content: 'x', version: 1, sha256: 'h', files: [], created_at: at(1), updated_at: at(1),
  });
  await log.at('tx with a name conflict inside', s.txAsync(async () => {
    await s.skills.save(skill('k1'), 'u');
    const second = await s.skills.save(skill('k2'), 'u');
    await s.agents.put(agent('kept'));
    return second;
  }));
  await log.at('tx committed (agent)', s.agents.get('tx', 'kept'));
  await log.at('tx committed (skill)', s.skills.visible('tx', 'u'));
}

const SEQUENCES: Record<string, (s: Groups, log: Log) => Promise<void>> = {
  agents: agentsSequence, skills: skillsSequence, 'mcp servers, MCP OAuth and plugin rules': mcpSequence, oauth: oauthSequence,
  webhooks: webhooksSequence, connectors: connectorsSequence, transactions: transactionsSequence,
};

describe('agent-runtime integration stores: SQLite and PostgreSQL answer alike', { skip: postgresMissing() ?? false }, () => {
  let pg: TestPostgres;
  let dir: string;
  let sqlite: RuntimeStore;
  let pgStore: Awaited<ReturnType<typeof openPgStore<ReturnType<typeof pgIntegrationTables>>>>;

  before(async () => {
    pg = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'runtime-integrations-'));
    sqlite = openRuntimeStore({ dbDir: dir, migrationsDir: MIGRATIONS });
    pgStore = await openPgStore({ settings: { url: pg.url, schema: 'agent_runtime' }, service: 'agent-runtime', migrationsDir: MIGRATIONS }, pgIntegrationTables);
  });

  after(async () => {
    sqlite?.close();
    await pgStore?.close();
    await pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, seq] of Object.entries(SEQUENCES)) {
    test(`${name}: the same calls give the same answers`, async () => {
      const a = new Log();
      const b = new Log();
      await seq(sqlite as unknown as Groups, a);
      await seq(pgStore as unknown as Groups, b);
      assert.ok(a.entries.length >= 5, 'the sequence recorded its answers');
      for (let i = 0; i < a.entries.length; i++) {
        assert.equal(b.entries[i]?.[0], a.entries[i]![0]);
        assert.deepStrictEqual(b.entries[i]![1], a.entries[i]![1], `PostgreSQL differs from SQLite at "${a.entries[i]![0]}"`);
      }
      assert.equal(b.entries.length, a.entries.length);
    });
  }

  test('spot checks: the answers are the expected ones, not merely equal', async () => {
    const s = pgStore as unknown as Groups;
    assert.deepEqual((await s.agents.visible(T, 'alice')).map((r) => r.name), ['_under', 'beta v2', 'Zulu', 'alpha']);
    assert.deepEqual((await s.connectors.list(T)).map((r) => r.id), ['c2', 'c3', 'c0']);
    assert.deepEqual((await s.connectors.jobs(T, 10)).map((j) => j.id), ['j5', 'j3', 'j4', 'j2', 'j1']);
    assert.equal((await s.mcpServers.get(T, 'm2'))?.trusted, 1);
    const rows = await pg.sql<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'agent_runtime' ORDER BY table_name");
    for (const t of ['agents', 'skills', 'skill_versions', 'mcp_servers', 'mcp_opt_outs', 'mcp_oauth', 'plugin_visibility', 'oauth_providers', 'oauth_states', 'oauth_connections', 'webhooks', 'webhook_deliveries', 'webhook_replays', 'connectors', 'connector_documents', 'connector_jobs']) {
      assert.ok(rows.some((r) => r.table_name === t), `table ${t} exists`);
    }
  });
});
