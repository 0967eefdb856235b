/**
 * The runtime's core stores on PostgreSQL (issue 21 item 1): the SAME sequence of port calls against
 * the SQLite facade (`openRuntimeStore`) and the PostgreSQL facade (`openPgRuntimeStore`, migrations
 * agent-runtime/pg) gives the same answers, group by group: sessions and messages (search with
 * escaped wildcards and ASCII case folding, folder filter, keyset cursor, appends, the delete
 * cascade and its context records), folders (NOCASE order, counts), approvals (single decision,
 * filters, cancel), tool policies (upsert), conversations (items, pages both ways, rewrites, runs
 * ended once, the session link set null), notifications (idempotency, the cap's eviction order,
 * counters), user profiles (seeding once, drafts, dismissals), secrets (bytes), context records
 * (pruning per user), permission profiles (name conflicts) and turn statistics. `txAsync` rolls
 * back on throw and a nested one is a savepoint, on both engines. Then the runtime itself runs on
 * PostgreSQL over HTTP and creates no SQLite file. Skips when PostgreSQL is absent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRuntimeStore, type RuntimeStore } from '../../services/agent-runtime/src/store/runtime-store.js';
import { openPgRuntimeStore } from '../../services/agent-runtime/src/store/pg/index.js';
import type { NewMessage, SessionRow } from '../../services/agent-runtime/src/domain/ports.js';
import type { NewItem } from '../../services/agent-runtime/src/domain/conversations/ports.js';
import type { NotificationRow } from '../../services/agent-runtime/src/domain/notifications/ports.js';
import type { TurnStatRow } from '../../services/agent-runtime/src/domain/admin/ports.js';
import type { AgentRuntimeSettings } from '../../services/agent-runtime/src/contracts.js';
import { REPO_ROOT } from '../helpers/audit.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startHarness, type Harness } from '../helpers/runtime-harness.js';

const MIGRATIONS = join(REPO_ROOT, 'migrations');
const T = 'acme';
const at = (n: number): string => new Date(Date.UTC(2026, 10, 24, 10, 0, n)).toISOString();

/** Plain, comparable values: Buffers as hex, Sets sorted, objects by key. */
function plain(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return `hex:${v.toString('hex')}`;
  if (v instanceof Set) return [...v].map(plain).sort();
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** Records every answer of a sequence. */
class Log {
  readonly entries: Array<[string, unknown]> = [];
  async at(label: string, v: unknown): Promise<void> {
    let value: unknown;
    try { value = await v; } catch (err) { value = { threw: (err as Error).message.slice(0, 40) }; }
    this.entries.push([label, plain(value)]);
  }
}

const session = (id: string, over: Partial<SessionRow> = {}): SessionRow => ({
  id, tenant_id: T, user_id: 'u1', agent_id: 'default', title: null, title_source: 'none', folder_id: null, branched_from_session: null,
  branched_from_message: null, message_count: 0, created_at: at(1), updated_at: at(1), ...over,
});
const message = (id: string, content: string, role = 'user', n = 2): NewMessage => ({
  id, role, content, parts: null, tool_calls: null, tool_call_id: null, name: null, turn_id: `turn-${id}`, trace: null, receipt: null, created_at: at(n),
});

async function sessionsSequence(s: RuntimeStore, log: Log): Promise<void> {
  await s.folders.create('f1', T, 'u1', 'beta', at(1));
  await s.folders.create('f2', T, 'u1', 'Alpha', at(1));
  await s.folders.create('f3', T, 'u1', 'alpha', at(1));
  await s.folders.create('f4', T, 'u2', 'other', at(1));
  await s.sessions.create(session('s1', { title: 'Trip to LISBON', updated_at: at(3) }), [message('m1', 'plan 100% of it'), message('m2', 'sure', 'assistant')]);
  await s.sessions.create(session('s2', { title: 'bread_recipe', folder_id: 'f1', updated_at: at(3) }));
  await s.sessions.create(session('s3', { title: 'Ünïcode', updated_at: at(5) }), [message('m3', 'hidden tool text', 'tool')]);
  await s.sessions.create(session('s4', { user_id: 'u2', title: 'Lisbon too' }));
  await log.at('get s1', s.sessions.get('s1', T, 'u1'));
  await log.at('get s1 as u2', s.sessions.get('s1', T, 'u2'));
  await log.at('messages s1', s.sessions.messages('s1'));
  await s.sessions.appendMessages('s1', [message('m4', 'more', 'user', 6), message('m5', 'answer', 'assistant', 6)], at(6));
  await log.at('messages s1 after append', s.sessions.messages('s1'));
  const list = (q: Partial<Parameters<RuntimeStore['sessions']['list']>[0]>): Promise<unknown> => Promise.resolve(s.sessions.list({ tenantId: T, userId: 'u1', limit: 10, ...q }));
  await log.at('list all', list({}));
  await log.at('list q lisbon (case)', list({ q: 'lisbon' }));
  await log.at('list q 100%', list({ q: '100%' }));
  await log.at('list q %', list({ q: '%' }));
  await log.at('list q _', list({ q: '_' }));
  await log.at('list q tool text (not searched)', list({ q: 'hidden' }));
  await log.at('list q ü (no unicode folding)', list({ q: 'ÜN' }));
  await log.at('list folder f1', list({ folderId: 'f1' }));
  await log.at('list no folder', list({ folderId: null }));
  await log.at('list page', list({ limit: 1, after: { updatedAt: at(6), id: 's1' } }));
  await log.at('list page tie', list({ limit: 5, after: { updatedAt: at(3), id: 's2' } }));
  await log.at('update', s.sessions.update({ ...session('s2'), title: 'Bread', title_source: 'user', folder_id: 'f2', updated_at: at(7) }));
  await log.at('update other user', s.sessions.update({ ...session('s4'), user_id: 'u1', title: 'x' }));
  await log.at('title fallback', s.sessions.setGeneratedTitle('s3', 'Generated', 'generated'));
  await log.at('title after generated', s.sessions.setGeneratedTitle('s3', 'Again', 'fallback'));
  await log.at('title user set', s.sessions.setGeneratedTitle('s2', 'No', 'generated'));
  await log.at('folders u1', s.folders.list(T, 'u1'));
  await log.at('folder f2', s.folders.get('f2', T, 'u1'));
  await log.at('folder f4 as u1', s.folders.get('f4', T, 'u1'));
  await log.at('rename', s.folders.rename('f3', T, 'u1', 'Gamma', at(8)));
  await log.at('rename other', s.folders.rename('f4', T, 'u1', 'x', at(8)));
  await log.at('delete folder f2', s.folders.delete('f2', T, 'u1'));
  await log.at('s2 after folder delete', s.sessions.get('s2', T, 'u1'));
  await log.at('folders after', s.folders.list(T, 'u1'));
  await s.contextRecords.put({ turn_id: 'turn-m1', tenant_id: T, user_id: 'u1', session_id: 's1', agent_id: 'default', status: 'completed', total_tokens: 5, created_at: at(2), record: '{}' }, 10);
  await log.at('delete s1', s.sessions.delete('s1', T, 'u1'));
  await log.at('delete s1 again', s.sessions.delete('s1', T, 'u1'));
  await log.at('messages of deleted', s.sessions.messages('s1'));
  await log.at('context record of deleted session', s.contextRecords.get('turn-m1', T));
  await log.at('duplicate session id', (async () => { await s.sessions.create(session('s3')); })().then(() => 'created', () => 'refused'));
}

async function approvalsSequence(s: RuntimeStore, log: Log): Promise<void> {
  const ap = (id: string, user: string, n: number) => ({
    id, tenant_id: T, user_id: user, session_id: 's', agent_id: 'default', turn_id: null, tool: 'shell', call_id: `c-${id}`, arguments: '{"a":1}',
    status: 'pending', reason: null, created_at: at(n), expires_at: at(n + 60), decided_at: null, decided_by: null,
  });
  await s.approvals.insert(ap('a1', 'u1', 1));
  await s.approvals.insert(ap('a2', 'u1', 2));
  await s.approvals.insert(ap('a3', 'u2', 2));
  await s.approvals.insert({ ...ap('a4', 'u1', 3), tenant_id: 'other' });
  await log.at('decide a1', s.approvals.decide('a1', T, 'approved', 'ok', at(9), 'u1'));
  await log.at('decide a1 again', s.approvals.decide('a1', T, 'rejected', null, at(9), 'u1'));
  await log.at('decide other tenant', s.approvals.decide('a4', T, 'approved', null, at(9), 'u1'));
  await log.at('get a1', s.approvals.get('a1', T));
  await log.at('list tenant', s.approvals.list(T, null, null, 10));
  await log.at('list u1 pending', s.approvals.list(T, 'u1', 'pending', 10));
  await log.at('list limit', s.approvals.list(T, null, 'pending', 1));
  await log.at('cancel pending', s.approvals.cancelPending(at(10)));
  await log.at('after cancel', s.approvals.list(T, null, null, 10));
  await s.policies.upsert(T, '', 'shell', 'ask', at(1), 'adm');
  await s.policies.upsert(T, 'strict', 'calc', 'deny', at(1), null);
  await s.policies.upsert(T, '', 'calc', 'auto', at(1), null);
  await s.policies.upsert(T, '', 'shell', 'deny', at(2), 'adm2');
  await log.at('policies', s.policies.list(T));
  await log.at('policy delete', s.policies.delete(T, 'strict', 'calc'));
  await log.at('policy delete again', s.policies.delete(T, 'strict', 'calc'));
  await log.at('policies after', s.policies.list(T));
}

async function conversationsSequence(s: RuntimeStore, log: Log): Promise<void> {
  const item = (id: string, text: string, run: string | null = null): NewItem => ({
    id, type: 'message', role: 'user', content: JSON.stringify([{ type: 'input_text', text }]), call_id: null, name: null, arguments: null, output: null,
    status: 'completed', excluded: 0, run_id: run, turn_id: null, created_at: at(1),
  });
  await s.sessions.create(session('cs1'));
  await s.conversations.create({ id: 'conv_1', tenant_id: T, user_id: 'u1', session_id: null, metadata: '{"k":"v"}', created_at: at(1), updated_at: at(1) },
    [item('i1', 'a'), item('i2', 'b')]);
  await s.conversations.create({ id: 'conv_2', tenant_id: T, user_id: 'u1', session_id: 'cs1', metadata: '{}', created_at: at(2), updated_at: at(2) });
  await s.conversations.create({ id: 'conv_3', tenant_id: T, user_id: 'u2', session_id: null, metadata: '{}', created_at: at(2), updated_at: at(2) });
  await log.at('get', s.conversations.get('conv_1', T, 'u1'));
  await log.at('get as u2', s.conversations.get('conv_1', T, 'u2'));
  await log.at('by session', s.conversations.bySession('cs1', T, 'u1'));
  await log.at('list', s.conversations.list(T, 'u1', 10));
  await log.at('list before', s.conversations.list(T, 'u1', 10, 'conv_2'));
  await log.at('metadata', s.conversations.setMetadata('conv_1', '{"k":"w"}', at(3)));
  await log.at('metadata missing', s.conversations.setMetadata('conv_x', '{}', at(3)));
  await log.at('append', s.conversations.appendItems('conv_1', [item('i3', 'c', 'run_1'), item('i4', 'd', 'run_1')], at(4)));
  await log.at('append missing', s.conversations.appendItems('conv_x', [item('i9', 'z')], at(4)));
  await log.at('items', s.conversations.items('conv_1'));
  await log.at('page asc', s.conversations.itemPage({ conversationId: 'conv_1', order: 'asc', limit: 2 }));
  await log.at('page asc after 2', s.conversations.itemPage({ conversationId: 'conv_1', order: 'asc', limit: 2, afterSeq: 2 }));
  await log.at('page desc', s.conversations.itemPage({ conversationId: 'conv_1', order: 'desc', limit: 3 }));
  await log.at('page desc after 3', s.conversations.itemPage({ conversationId: 'conv_1', order: 'desc', limit: 3, afterSeq: 3 }));
  await log.at('item', s.conversations.item('conv_1', 'i2'));
  await log.at('item other conv', s.conversations.item('conv_2', 'i2'));
  await s.conversations.rewriteItems('conv_1', [{ id: 'i1', content: '[]', status: 'incomplete', excluded: 1, turn_id: 'tt' }]);
  await log.at('items of run', s.conversations.itemsOfRun('conv_1', 'run_1'));
  await log.at('delete item', s.conversations.deleteItem('conv_1', 'i2'));
  await log.at('delete item again', s.conversations.deleteItem('conv_1', 'i2'));
  await log.at('append after delete', s.conversations.appendItems('conv_1', [item('i5', 'e')], at(5)));
  await log.at('items after', s.conversations.items('conv_1'));
  const run = (id: string, status: string) => ({
    id, conversation_id: 'conv_1', tenant_id: T, user_id: 'u1', agent_id: 'default', status, turn_id: null, model: null, usage: null, receipt: null,
    error_code: null, error_message: null, created_at: at(5), started_at: at(5), completed_at: null,
  });
  await s.conversations.insertRun(run('run_1', 'in_progress'));
  await s.conversations.insertRun(run('run_2', 'queued'));
  await s.conversations.insertRun(run('run_3', 'in_progress'));
  const end = { status: 'completed', model: 'm', usage: '{"p":1}', receipt: null, error_code: null, error_message: null, completed_at: at(6) };
  await log.at('finish', s.conversations.finishRun('run_1', end));
  await log.at('finish again', s.conversations.finishRun('run_1', { ...end, status: 'cancelled', model: null }));
  await log.at('fail active keeping conv_1 (another runtime holds it)', s.conversations.failActiveRuns(at(7), 'runtime_restarted', 'gone', ['conv_1']));
  await log.at('fail active', s.conversations.failActiveRuns(at(7), 'runtime_restarted', 'gone'));
  await log.at('runs', s.conversations.runs('conv_1', 10));
  await log.at('run', s.conversations.run('conv_1', 'run_1'));
  await log.at('run other conv', s.conversations.run('conv_2', 'run_1'));
  await log.at('link a second conversation to cs1', (async () => { await s.conversations.linkSession('conv_1', 'cs1', at(8)); })().then(() => 'linked', () => 'refused'));
  await log.at('link refused', s.conversations.get('conv_1', T, 'u1'));
  await s.sessions.delete('cs1', T, 'u1');
  await log.at('session gone: link null', s.conversations.get('conv_2', T, 'u1'));
  await log.at('delete conv', s.conversations.delete('conv_1', T, 'u1'));
  await log.at('items of deleted', s.conversations.items('conv_1'));
  await log.at('runs of deleted', s.conversations.runs('conv_1', 10));
}

async function notificationsSequence(s: RuntimeStore, log: Log): Promise<void> {
  const n = (id: string, over: Partial<NotificationRow> = {}): NotificationRow => ({
    id, tenant_id: T, user_id: 'u1', kind: 'k', title: `t-${id}`, body: null, payload: null, producer: 'p', idempotency_key: null, read_at: null, created_at: at(1), ...over,
  });
  await log.at('add 1', s.notifications.add(n('01A'), 3));
  await log.at('add 2 keyed', s.notifications.add(n('01B', { idempotency_key: 'k1' }), 3));
  await log.at('add repeat key', s.notifications.add(n('01C', { idempotency_key: 'k1', title: 'other' }), 3));
  await log.at('add other user', s.notifications.add(n('01D', { user_id: 'u2', idempotency_key: 'k1' }), 3));
  await log.at('add 3', s.notifications.add(n('01E'), 3));
  await log.at('mark read 01A', s.notifications.markRead('01A', T, 'u1', at(2)));
  await log.at('mark read again', s.notifications.markRead('01A', T, 'u1', at(3)));
  await log.at('mark read as u2', s.notifications.markRead('01A', T, 'u2', at(3)));
  await log.at('unread', s.notifications.unreadCount(T, 'u1'));
  await log.at('add at cap: evicts the read one', s.notifications.add(n('01F'), 3));
  await log.at('add at cap: evicts the oldest unread', s.notifications.add(n('01G'), 3));
  await log.at('list', s.notifications.list(T, 'u1', null, 10));
  await log.at('page', s.notifications.list(T, 'u1', '01G', 1));
  await log.at('by key', s.notifications.markReadByKey(T, 'u1', 'k1', at(4)));
  await log.at('by key gone', s.notifications.markReadByKey(T, 'u2', 'nope', at(4)));
  await log.at('unread after key', s.notifications.unreadCount(T, 'u1'));
  await log.at('all', s.notifications.markAllRead(T, 'u1', at(5)));
  await log.at('all again', s.notifications.markAllRead(T, 'u1', at(5)));
  await log.at('unread none', s.notifications.unreadCount(T, 'u1'));
  await log.at('unread of nobody', s.notifications.unreadCount(T, 'nobody'));
  await log.at('unread u2', s.notifications.unreadCount(T, 'u2'));
}

async function profilesSequence(s: RuntimeStore, log: Log): Promise<void> {
  await log.at('get none', s.userProfiles.get(T, 'u1'));
  await log.at('seed', s.userProfiles.seedTimezone(T, 'u1', 'Europe/Rome', at(1)));
  await log.at('seed again', s.userProfiles.seedTimezone(T, 'u1', 'Asia/Tokyo', at(2)));
  await log.at('get seeded', s.userProfiles.get(T, 'u1'));
  await s.userProfiles.put({ tenant_id: T, user_id: 'u1', display_name: 'Ann', timezone: null, timezone_source: 'user', language: 'en', preferences: '["tea"]', created_at: at(9), updated_at: at(3) });
  await log.at('get put (created_at kept)', s.userProfiles.get(T, 'u1'));
  await log.at('seed after user cleared', s.userProfiles.seedTimezone(T, 'u1', 'Asia/Tokyo', at(4)));
  await log.at('draft none', s.userProfiles.draft(T, 'u1'));
  await s.userProfiles.putDraft({ tenant_id: T, user_id: 'u1', id: 'd1', changes: '[]', session_id: 's', turn_id: null, created_at: at(4) });
  await s.userProfiles.putDraft({ tenant_id: T, user_id: 'u1', id: 'd2', changes: '[1]', session_id: null, turn_id: 't', created_at: at(5) });
  await log.at('draft', s.userProfiles.draft(T, 'u1'));
  await log.at('delete draft', s.userProfiles.deleteDraft(T, 'u1'));
  await log.at('delete draft again', s.userProfiles.deleteDraft(T, 'u1'));
  await s.userProfiles.dismiss(T, 'u1', ['h2', 'h1', 'h2'], at(6));
  await s.userProfiles.dismiss(T, 'u1', ['h1'], at(7));
  await log.at('dismissed', s.userProfiles.dismissed(T, 'u1', ['h1', 'h3', 'h2']));
  await log.at('dismissed other user', s.userProfiles.dismissed(T, 'u2', ['h1']));
  await log.at('dismissed none asked', s.userProfiles.dismissed(T, 'u1', []));
  const secret = (name: string, user: string, v: number) => ({
    tenant_id: T, user_id: user, name, description: v ? `d${v}` : null, key_id: 'k1', iv: Buffer.from([v, 1, 2]), tag: Buffer.from([0, 255, v]),
    ciphertext: Buffer.from(`ct-${name}-${v}`), created_at: at(v), updated_at: at(v),
  });
  await s.secrets.put(secret('B', 'u1', 1));
  await s.secrets.put(secret('A', 'u1', 2));
  await s.secrets.put(secret('A', '', 3));
  await s.secrets.put({ ...secret('B', 'u1', 4), created_at: at(0) });
  await log.at('secret get', s.secrets.get(T, 'u1', 'B'));
  await log.at('secrets list', s.secrets.list(T, 'u1'));
  await log.at('tenant secrets', s.secrets.list(T, ''));
  await log.at('secret delete', s.secrets.delete(T, 'u1', 'A'));
  await log.at('secret delete again', s.secrets.delete(T, 'u1', 'A'));
}

async function adminSequence(s: RuntimeStore, log: Log): Promise<void> {
  const rec = (turn: string, user: string, n: number) => ({
    turn_id: turn, tenant_id: T, user_id: user, session_id: 'sx', agent_id: 'default', status: 'completed', total_tokens: n, created_at: at(n), record: `{"n":${n}}`,
  });
  await log.at('ctx put 1', s.contextRecords.put(rec('c1', 'u1', 1), 2));
  await log.at('ctx put 2', s.contextRecords.put(rec('c2', 'u1', 2), 2));
  await log.at('ctx put other user', s.contextRecords.put(rec('o1', 'u2', 0), 2));
  await log.at('ctx put 3 prunes', s.contextRecords.put(rec('c3', 'u1', 3), 2));
  await log.at('ctx replace', s.contextRecords.put({ ...rec('c3', 'u1', 4), status: 'failed' }, 0));
  await log.at('ctx get', s.contextRecords.get('c3', T));
  await log.at('ctx get pruned', s.contextRecords.get('c1', T));
  await log.at('ctx get other tenant', s.contextRecords.get('c3', 'other'));
  await log.at('ctx recent', s.contextRecords.recent(T, 'u1', 5));
  const prof = (id: string, name: string) => ({
    id, tenant_id: T, name, roles: '["user"]', groups: '[]', agents: '["*"]', tools: '[]', knowledge: '{}', created_at: at(1), updated_at: at(1), updated_by: null,
  });
  await log.at('profile insert', s.permissionProfiles.insert(prof('p1', 'Zed')));
  await log.at('profile insert', s.permissionProfiles.insert(prof('p2', 'alpha')));
  await log.at('profile insert dup name', s.permissionProfiles.insert(prof('p3', 'Zed')));
  await log.at('profile update taken', s.permissionProfiles.update({ ...prof('p2', 'Zed'), updated_at: at(2) }));
  await log.at('profile update missing', s.permissionProfiles.update(prof('p9', 'x')));
  await log.at('profile update ok', s.permissionProfiles.update({ ...prof('p2', 'Beta'), created_at: at(9), updated_at: at(3), updated_by: 'adm' }));
  await log.at('profiles', s.permissionProfiles.list(T));
  await log.at('profile get', s.permissionProfiles.get(T, 'p2'));
  await log.at('profile delete', s.permissionProfiles.delete(T, 'p1'));
  await log.at('profile delete again', s.permissionProfiles.delete(T, 'p1'));
  const row = (id: string, over: Partial<TurnStatRow>): TurnStatRow => ({
    id, turn_id: id, tenant_id: T, agent_id: 'default', user_id: 'u', session_id: 's', status: 'completed', error_code: null, error_message: null,
    guard_unavailable: 0, tool_calls: 0, tool_errors: 0, latency_ms: 10.5, prompt_tokens: 1, completion_tokens: 2, started_at: at(1), ended_at: at(10), day: '2026-11-24', ...over,
  });
  await s.turnStats.record(row('a', { tool_calls: 2, tool_errors: 1 }), [{ tool: 'x', status: 'ok' }, { tool: 'x', status: 'error' }]);
  await s.turnStats.record(row('a', {}), [{ tool: 'x', status: 'error' }]);
  await s.turnStats.record(row('b', { status: 'failed', error_code: 'backend_unavailable', error_message: 'down', ended_at: at(11) }), [{ tool: 'y', status: 'invalid' }]);
  await s.turnStats.record(row('c', { status: 'failed', error_code: 'client_closed', ended_at: at(12) }), []);
  await s.turnStats.record(row('d', { status: 'failed', error_code: 'guardrail_unavailable', guard_unavailable: 1, ended_at: at(13) }), []);
  await s.turnStats.record(row('old', { status: 'failed', ended_at: at(0) }), []);
  await log.at('errors', s.turnStats.errorCounts(T, at(5)));
  await log.at('errors none', s.turnStats.errorCounts('other', at(5)));
  await log.at('recent errors', s.turnStats.recentErrors(T, at(5), 10));
  await log.at('recent errors limit', s.turnStats.recentErrors(T, at(5), 1));
  await log.at('tool counts', s.turnStats.toolCounts(T, at(5)));
  await log.at('since', s.turnStats.since(T, at(5)));
}

async function transactionsSequence(s: RuntimeStore, log: Log): Promise<void> {
  await log.at('rolled back on throw', s.txAsync(async () => {
    await s.folders.create('tx1', T, 'u9', 'kept?', at(1));
    throw new Error('boom');
  }));
  await log.at('nothing kept', s.folders.list(T, 'u9'));
  await log.at('savepoint', s.txAsync(async () => {
    await s.folders.create('tx2', T, 'u9', 'outer', at(1));
    await s.txAsync(async () => { await s.folders.create('tx3', T, 'u9', 'inner', at(1)); throw new Error('inner'); }).catch(() => 'inner rolled back');
    return 'outer committed';
  }));
  await log.at('outer kept, inner gone', s.folders.list(T, 'u9'));
}

const SEQUENCES: Array<[string, (s: RuntimeStore, log: Log) => Promise<void>]> = [
  ['sessions and folders', sessionsSequence], ['approvals and policies', approvalsSequence], ['conversations', conversationsSequence],
  ['notifications', notificationsSequence], ['profiles and secrets', profilesSequence], ['context records, permission profiles, turn stats', adminSequence],
  ['transactions', transactionsSequence],
];

describe('agent-runtime core stores: SQLite and PostgreSQL answer alike', { skip: postgresMissing() ?? false }, () => {
  let pg: TestPostgres;
  let dir: string;
  let sqlite: RuntimeStore;
  let pgStore: RuntimeStore;

  before(async () => {
    pg = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'svc-rt-pg-'));
    sqlite = openRuntimeStore({ dbDir: dir, migrationsDir: MIGRATIONS });
    pgStore = await openPgRuntimeStore({ url: pg.url, schema: 'agent_runtime' }, MIGRATIONS);
  });
  after(async () => {
    await pgStore?.close();
    await sqlite?.close();
    await pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, run] of SEQUENCES) {
    test(name, async () => {
      const a = new Log();
      const b = new Log();
      await run(sqlite, a);
      await run(pgStore, b);
      assert.ok(a.entries.length >= 4);
      for (let i = 0; i < a.entries.length; i++) assert.deepStrictEqual(b.entries[i], a.entries[i], `answer ${i} (${a.entries[i]![0]})`);
      assert.equal(b.entries.length, a.entries.length);
    });
  }

  test('the facade: engine, readiness, every table of the SQLite migrations exists in the schema', async () => {
    assert.equal(pgStore.engine, 'postgres');
    assert.equal(await pgStore.ready(), true);
    const rows = await pg.sql<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'agent_runtime'");
    const have = new Set(rows.map((r) => r.table_name));
    for (const t of ['sessions', 'messages', 'folders', 'approvals', 'tool_policies', 'notifications', 'notification_counters', 'user_profiles', 'profile_drafts',
      'profile_dismissals', 'secrets', 'conversations', 'conversation_items', 'conversation_runs', 'context_records', 'permission_profiles', 'turn_stats', 'turn_tool_stats']) {
      assert.ok(have.has(t), `table ${t}`);
    }
  });
});

describe('the runtime on PostgreSQL over HTTP', { skip: postgresMissing() ?? false }, () => {
  let pg: TestPostgres;
  let h: Harness;

  before(async () => {
    pg = await startPostgres();
    const database = { url: pg.url, schema: 'agent_runtime' };
    h = await startHarness({ conversationsEnabled: true, titleGeneration: false, ...({ database } as unknown as Partial<AgentRuntimeSettings>) }, {
      script: (r) => ({ content: `echo: ${String((r.body.messages as Array<{ content: unknown }>).at(-1)!.content)}` }),
    });
  });
  after(async () => {
    await h?.close();
    await pg?.stop();
  });

  test('chat, sessions, folders, conversations, profile, secrets, notifications and admin roles answer from PostgreSQL; no agent-runtime.sqlite', async () => {
    assert.equal((await fetch(`${h.url}/readyz`)).status, 200);
    const chat = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'Hello Lisbon' }] });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const sid = (chat.body as { session_id: string }).session_id;
    const again = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'again' }], session_id: sid });
    assert.equal(again.status, 200);
    const detail = (await h.call('GET', `/v1/sessions/${sid}`)).body as { title: string; messages: Array<{ role: string; content: string }> };
    assert.deepEqual(detail.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    assert.equal(detail.messages[1]!.content, 'echo: Hello Lisbon');
    assert.equal(detail.title, 'Hello Lisbon');
    const found = (await h.call('GET', '/v1/sessions?q=lisbon')).body as { items: Array<{ id: string }> };
    assert.deepEqual(found.items.map((s) => s.id), [sid]);
    const rows = await pg.sql<{ n: number }>('SELECT count(*)::int AS n FROM agent_runtime.messages WHERE session_id = $1', [sid]);
    assert.equal(rows[0]!.n, 4, 'the messages are in PostgreSQL');

    const folder = await h.call('POST', '/v1/folders', { name: 'Trips' });
    assert.equal(folder.status, 201);
    const fid = (folder.body as { id: string }).id;
    assert.equal((await h.call('PUT', `/v1/sessions/${sid}/folder`, { folder_id: fid })).status, 200);
    assert.equal(((await h.call('GET', `/v1/folders/${fid}`)).body as { session_count: number }).session_count, 1);
    assert.equal((await h.call('GET', '/v1/folders/nope')).status, 404);

    const conv = await h.call('POST', '/v1/conversations', { items: [{ type: 'message', role: 'user', content: 'hi there' }] });
    assert.equal(conv.status, 201, JSON.stringify(conv.body));
    const cid = (conv.body as { id: string }).id;
    const run = await h.call('POST', `/v1/conversations/${cid}/runs`, {});
    assert.equal(run.status, 201, JSON.stringify(run.body));
    assert.equal((run.body as { status: string }).status, 'completed');
    const items = (await h.call('GET', `/v1/conversations/${cid}/items?order=asc`)).body as { items: Array<{ role?: string }> };
    assert.deepEqual(items.items.map((i) => i.role), ['user', 'assistant']);

    assert.equal((await h.call('PUT', '/v1/user/profile', { display_name: 'Ann', timezone: 'Europe/Rome' })).status, 200);
    assert.equal(((await h.call('GET', '/v1/user/profile')).body as { display_name: string }).display_name, 'Ann');
    assert.equal((await h.call('PUT', '/v1/user/secrets/API_KEY', { value: 's3cret' })).status, 201);
    const secrets = (await h.call('GET', '/v1/user/secrets')).body as { items: Array<{ name: string }> };
    assert.deepEqual(secrets.items.map((x) => x.name), ['API_KEY']);
    const stored = await pg.sql<{ ciphertext: Buffer }>("SELECT ciphertext FROM agent_runtime.secrets WHERE name = 'API_KEY'");
    assert.ok(!stored[0]!.ciphertext.toString('utf8').includes('s3cret'), 'only ciphertext is stored');

    const posted = await h.call('POST', '/v1/internal/notifications', { tenant_id: 'acme', user_id: 'user-1', kind: 'test', title: 'Hi', idempotency_key: 'k' },
      { id: 'service:knowledge', roles: ['service-account'] });
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    const repeat = await h.call('POST', '/v1/internal/notifications', { tenant_id: 'acme', user_id: 'user-1', kind: 'test', title: 'Hi', idempotency_key: 'k' },
      { id: 'service:knowledge', roles: ['service-account'] });
    assert.equal(repeat.status, 200, 'a repeated key answers the original');
    assert.deepEqual((await h.call('GET', '/v1/notifications/unread-count')).body, { count: 1 });
    assert.deepEqual((await h.call('POST', '/v1/notifications/read-all')).body, { marked: 1 });

    const prof = await h.call('POST', '/v1/admin/roles/profiles', { name: 'Clock', roles: ['user'], tools: ['calculator'] }, { roles: ['admin'] });
    assert.equal(prof.status, 201, JSON.stringify(prof.body));
    assert.equal((await h.call('POST', '/v1/admin/roles/profiles', { name: 'Clock' }, { roles: ['admin'] })).status, 409);
    const ctx = await h.call('GET', `/v1/context/turns/${chat.turnId}`);
    assert.equal(ctx.status, 200, 'the context record of the first turn');
    assert.equal((await h.call('DELETE', `/v1/sessions/${sid}`)).status, 204);
    assert.equal((await h.call('GET', `/v1/context/turns/${chat.turnId}`)).status, 404, 'deleting the chat deletes its context records');

    const dbDir = h.cfg.dbDir;
    const files = existsSync(dbDir) ? readdirSync(dbDir) : [];
    assert.deepEqual(files.filter((f) => f.startsWith('agent-runtime')), [], `no runtime SQLite file (dbDir holds ${files.join(', ') || 'nothing'}; audit's are the harness's)`);
  });
});
