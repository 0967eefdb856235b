/**
 * Notification use cases over a real in-memory SQLite store (issue 13 item 1): producer checks,
 * payload limits measured iteratively, cursors, exactly-once per idempotency key, eviction order,
 * the counters the triggers keep, the live hub (events, per-user cap, shutdown), the approval
 * producer and its fail-soft delivery.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isDomainError } from '../../../services/shared/kit/domain-error.js';
import { openRuntimeStore, type RuntimeStore } from '../../../services/agent-runtime/src/store/runtime-store.js';
import { NotificationHub, type StreamListener } from '../../../services/agent-runtime/src/domain/notifications/hub.js';
import { Notifications } from '../../../services/agent-runtime/src/domain/notifications/inbox.js';
import { decodeCursor, encodeCursor, payloadText, producerOf } from '../../../services/agent-runtime/src/domain/notifications/payload.js';
import { approvalNotice, noticingApprovals, softNotify } from '../../../services/agent-runtime/src/domain/notifications/producers.js';
import type { ApprovalRow } from '../../../services/agent-runtime/src/domain/ports.js';
import type { NotificationStreamEventMap } from '../../../services/agent-runtime/src/contracts.js';

const MIGRATIONS = join(process.cwd(), 'migrations');

async function codeOfAsync(fn: () => Promise<unknown>): Promise<string> {
  try { await fn(); return 'none'; } catch (err) { if (isDomainError(err)) return err.code; throw err; }
}

function codeOf(fn: () => unknown): string {
  try { fn(); return 'none'; } catch (err) { if (isDomainError(err)) return err.code; throw err; }
}

function open(maxPerUser = 100): { store: RuntimeStore; hub: NotificationHub; n: Notifications } {
  const store = openRuntimeStore({ dbDir: ':memory:', migrationsDir: MIGRATIONS });
  const hub = new NotificationHub(2);
  return { store, hub, n: new Notifications({ store: store.notifications, hub, maxPerUser, producers: ['knowledge', 'sandbox'] }) };
}

const svc = (name: string) => ({ id: `service:${name}`, auth_method: 'service' as const });
const owner = { tenantId: 't', userId: 'u' };
const input = (over: Record<string, unknown> = {}) => ({ tenant_id: 't', user_id: 'u', kind: 'test', title: 'hello', ...over });

test('producerOf: only allow-listed service principals', () => {
  const allowed = new Set(['knowledge']);
  assert.equal(producerOf(svc('knowledge'), allowed), 'knowledge');
  assert.equal(codeOf(() => producerOf(svc('memory'), allowed)), 'producer_not_allowed');
  assert.equal(codeOf(() => producerOf({ id: 'service:knowledge', auth_method: 'password' }, allowed)), 'service_account_required');
  assert.equal(codeOf(() => producerOf({ id: 'knowledge', auth_method: 'service' }, allowed)), 'service_account_required');
  assert.equal(codeOf(() => producerOf({ id: 'user-1', auth_method: 'password' }, allowed)), 'service_account_required');
});

test('payloadText: 8 KiB of UTF-8 and 8 levels; brackets inside strings do not count; objects only', () => {
  assert.equal(payloadText(undefined), null);
  assert.equal(payloadText(null), null);
  assert.equal(payloadText({ a: 1 }), '{"a":1}');
  const room = 8 * 1024 - '{"s":""}'.length;
  assert.ok(payloadText({ s: 'x'.repeat(room) }));
  assert.equal(codeOf(() => payloadText({ s: 'x'.repeat(room + 1) })), 'payload_too_large');
  // Multi-byte characters count in bytes.
  assert.equal(codeOf(() => payloadText({ s: 'é'.repeat(Math.ceil(room / 2) + 1) })), 'payload_too_large');
  let v: unknown = {};
  for (let i = 1; i < 8; i++) v = { a: v };
  assert.ok(payloadText(v));
  assert.equal(codeOf(() => payloadText({ a: v })), 'payload_too_deep');
  assert.ok(payloadText({ a: [[[[[[[1]]]]]]] }), 'an object and seven arrays: 8 levels');
  assert.equal(codeOf(() => payloadText({ a: [[[[[[[[1]]]]]]]] })), 'payload_too_deep');
  assert.ok(payloadText({ s: '[[[[[[[[[[{{{{{{{{{{' }), 'brackets in strings are text');
  assert.equal(codeOf(() => payloadText([1])), 'invalid_request');
  assert.equal(codeOf(() => payloadText('x')), 'invalid_request');
});

test('cursors round-trip a ULID; anything else is invalid_request', () => {
  const id = '01JABCDEFGHJKMNPQRSTVWXYZ0';
  assert.equal(decodeCursor(encodeCursor(id)), id);
  assert.equal(codeOf(() => decodeCursor('bm90LWFuLWlk')), 'invalid_request');
  assert.equal(codeOf(() => decodeCursor('')), 'invalid_request');
});

test('one notification per (tenant, user, idempotency key); the same key for another user is another notification', async () => {
  const { store, n } = open();
  const a = await n.post(svc('knowledge'), input({ idempotency_key: 'k' }));
  const b = await n.post(svc('sandbox'), input({ idempotency_key: 'k', title: 'other' }));
  const c = await n.post(svc('knowledge'), input({ idempotency_key: 'k', user_id: 'v' }));
  assert.equal(a.fresh, true);
  assert.equal(b.fresh, false);
  assert.deepEqual(b.notification, a.notification);
  assert.equal(c.fresh, true);
  assert.equal((await n.list(owner, {})).items.length, 1);
  assert.equal(await n.unreadCount(owner), 1);
  // Without a key every post is new.
  await n.post(svc('knowledge'), input());
  await n.post(svc('knowledge'), input());
  assert.equal(await n.unreadCount(owner), 3);
  store.close();
});

test('read marks and counters: one, all, and another user\'s id is notification_not_found', async () => {
  const { store, n } = open();
  const ids: string[] = [];
  for (const i of [1, 2, 3]) ids.push((await n.post(svc('knowledge'), input({ title: `n${i}` }))).notification.id);
  const first = await n.markRead(owner, ids[0]!);
  assert.ok(first.read_at);
  assert.equal(await n.unreadCount(owner), 2);
  assert.equal((await n.markRead(owner, ids[0]!)).read_at, first.read_at);
  assert.equal(await n.unreadCount(owner), 2, 'a second read changes nothing');
  assert.equal(await codeOfAsync(() => n.markRead({ tenantId: 't', userId: 'v' }, ids[1]!)), 'notification_not_found');
  assert.equal(await codeOfAsync(() => n.markRead({ tenantId: 'x', userId: 'u' }, ids[1]!)), 'notification_not_found');
  assert.equal(await n.markAllRead(owner), 2);
  assert.equal(await n.markAllRead(owner), 0);
  assert.equal(await n.unreadCount(owner), 0);
  store.close();
});

test('the cap evicts read ones (oldest first) before unread ones; counters stay exact', async () => {
  const { store, n } = open(3);
  const ids: string[] = [];
  for (const t of ['a', 'b', 'c']) ids.push((await n.post(svc('knowledge'), input({ title: t }))).notification.id);
  await n.markRead(owner, ids[2]!);
  await n.markRead(owner, ids[1]!);
  await n.post(svc('knowledge'), input({ title: 'd' }));
  assert.deepEqual((await n.list(owner, {})).items.map((x) => x.title), ['d', 'c', 'a'], 'b: the oldest read');
  await n.post(svc('knowledge'), input({ title: 'e' }));
  assert.deepEqual((await n.list(owner, {})).items.map((x) => x.title), ['e', 'd', 'a'], 'c: the other read one');
  await n.post(svc('knowledge'), input({ title: 'f' }));
  assert.deepEqual((await n.list(owner, {})).items.map((x) => x.title), ['f', 'e', 'd'], 'a: the oldest unread');
  assert.equal(await n.unreadCount(owner), 3);
  // A repeated key at the cap evicts nothing.
  const k = await n.post(svc('knowledge'), input({ title: 'g', idempotency_key: 'g' }));
  await n.post(svc('knowledge'), input({ title: 'g', idempotency_key: 'g' }));
  assert.deepEqual((await n.list(owner, {})).items.map((x) => x.title), ['g', 'f', 'e']);
  assert.equal(k.fresh, true);
  assert.equal(await n.unreadCount(owner), 3);
  store.close();
});

test('pages: newest first with next_cursor until the end', async () => {
  const { store, n } = open();
  for (let i = 0; i < 7; i++) await n.post(svc('knowledge'), input({ title: `n${i}` }));
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const p = await n.list(owner, { limit: 3, ...(cursor ? { cursor } : {}) });
    seen.push(...p.items.map((x) => x.title));
    cursor = p.next_cursor;
  } while (cursor);
  assert.deepEqual(seen, ['n6', 'n5', 'n4', 'n3', 'n2', 'n1', 'n0']);
  store.close();
});

/** A listener recording what it got. */
function recorder(): StreamListener & { got: Array<[string, unknown]>; closed: boolean } {
  const r = {
    got: [] as Array<[string, unknown]>, closed: false,
    send<K extends keyof NotificationStreamEventMap>(name: K, data: NotificationStreamEventMap[K]) { r.got.push([name, data]); },
    close() { r.closed = true; },
  };
  return r;
}

test('follow: the count at once, then new notifications and count changes of that user only; a third stream closes the oldest', async () => {
  const { store, hub, n } = open();
  const a = recorder();
  const stop = n.follow(owner, a);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(a.got, [['unread_count', { count: 0 }]]);
  const p = await n.post(svc('knowledge'), input({ idempotency_key: 'x' }));
  await n.post(svc('knowledge'), input({ idempotency_key: 'x' }));
  await n.post(svc('knowledge'), input({ user_id: 'v' }));
  assert.deepEqual(a.got.slice(1), [['notification', p.notification], ['unread_count', { count: 1 }]]);
  await n.markAllRead(owner);
  assert.deepEqual(a.got.at(-1), ['unread_count', { count: 0 }]);
  const b = recorder();
  const c = recorder();
  n.follow(owner, b);
  n.follow(owner, c);
  assert.equal(a.closed, true, 'cap of 2 per user: the oldest was closed');
  assert.equal(hub.size, 2);
  stop();
  n.closeStreams();
  assert.equal(b.closed && c.closed, true);
  assert.equal(hub.size, 0);
  store.close();
});

test('approval producer: a pending approval inserted through the store notifies its user; other calls pass through', async () => {
  const { store, n } = open();
  const log = { warns: 0, warn() { log.warns++; }, info() {} };
  const approvals = noticingApprovals(store.approvals, softNotify((x) => n.deliver('agent-runtime', x), log));
  const row: ApprovalRow = {
    id: 'ap1', tenant_id: 't', user_id: 'u', session_id: 's1', agent_id: 'default', turn_id: null, tool: 'calculator', call_id: 'c1',
    arguments: '{}', status: 'pending', reason: null, created_at: new Date().toISOString(), expires_at: new Date().toISOString(), decided_at: null, decided_by: null,
  };
  await approvals.insert(row);
  assert.equal((await approvals.get('ap1', 't'))?.tool, 'calculator', 'get passes through, bound to the store');
  await new Promise((r) => setImmediate(r));
  const items = await (await n.list(owner, {})).items;
  assert.equal(items.length, 1);
  assert.equal(items[0]!.kind, 'approval_waiting');
  assert.deepEqual(items[0]!.payload, approvalNotice(row).payload);
  store.close();
});

test('softNotify: never throws into the caller; logs the first failure of a run once', async () => {
  const lines: string[] = [];
  const log = { warn: (_o: object, m: string) => { lines.push(`warn ${m}`); }, info: (_o: object, m: string) => { lines.push(`info ${m}`); } };
  let fail = true;
  const notify = softNotify(() => { if (fail) throw new Error('down'); }, log);
  for (let i = 0; i < 5; i++) notify({ tenant_id: 't', user_id: 'u', kind: 'k', title: 't' });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(lines, ['warn notification not delivered']);
  fail = false;
  notify({ tenant_id: 't', user_id: 'u', kind: 'k', title: 't' });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(lines, ['warn notification not delivered', 'info notifications are delivered again']);
});
