/**
 * Receipts that read like history (issue 13 item 7), the renderer's rules: the kind filters (chats
 * first and by default), the list URL with its search, what a row says (what, who, when, how it
 * ended), and an open receipt closing when the user leaves the page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRenderer } from './load.js';

interface Item {
  turn_id: string; kind: 'chat' | 'tool_run' | 'admin' | 'other'; summary: string | null; method: string | null; route: string | null; user_id: string;
  created_at: string; outcome: 'completed' | 'failed' | 'blocked' | null; http_status: number | null; status: string; verified_at: string | null;
}
interface History {
  KIND_FILTERS: ReadonlyArray<{ value: string; label: string }>;
  DEFAULT_KIND: string;
  receiptListPath(kind: string, q: string, cursor?: string | null, limit?: number): string;
  whatOf(r: Item): { title: string; detail: string | null };
  kindLabel(k: Item['kind']): string;
  whoOf(r: Item, me: string | null | undefined): string;
  outcomeOf(r: Item): { label: string; tone: string };
  receiptState(r: Item): string;
  whenOf(iso: string, now?: Date, locale?: string): string;
  emptyText(kind: string, q: string): string;
}
interface Store {
  useApp: {
    getState(): { path: string; openReceipt: string | null; receiptOpened(t: string): void; navigated(p: string, o?: { replace?: boolean }): void; pathChanged(p: string): void };
  };
}

const h = await loadRenderer<History>('receipts/history.ts');
const item = (over: Partial<Item> = {}): Item => ({
  turn_id: 't1', kind: 'chat', summary: 'Plan the review', method: 'POST', route: '/v1/chat', user_id: 'u1', created_at: '2030-01-01T10:00:00.000Z',
  outcome: 'completed', http_status: 200, status: 'sealed', verified_at: null, ...over,
});

test('kind filters: chats first and by default, then tool runs, admin actions, everything', () => {
  assert.deepEqual(h.KIND_FILTERS.map((f) => f.label), ['Chats', 'Tool runs', 'Admin actions', 'Everything']);
  assert.deepEqual(h.KIND_FILTERS.map((f) => f.value), ['chat', 'tool_run', 'admin', 'all']);
  assert.equal(h.DEFAULT_KIND, 'chat');
});

test('the list URL carries kind, a trimmed search and the cursor', () => {
  assert.equal(h.receiptListPath('chat', ''), '/v1/receipts?limit=50&kind=chat');
  assert.equal(h.receiptListPath('all', '  100% off & more '), '/v1/receipts?limit=50&kind=all&q=100%25+off+%26+more');
  assert.equal(h.receiptListPath('admin', '', 'abc', 10), '/v1/receipts?limit=10&kind=admin&cursor=abc');
  assert.equal(new URL(h.receiptListPath('chat', 'x'.repeat(300)), 'http://h').searchParams.get('q')!.length, 200);
});

test('what a row says: a chat\'s first words, a tool run, or the method and route', () => {
  assert.deepEqual(h.whatOf(item()), { title: '“Plan the review”', detail: null });
  assert.deepEqual(h.whatOf(item({ summary: null })), { title: 'Chat', detail: 'POST /v1/chat' });
  assert.deepEqual(h.whatOf(item({ kind: 'tool_run', summary: 'bash', route: '/v1/user/approvals/a/approve' })), { title: 'Tool run: bash', detail: 'POST /v1/user/approvals/a/approve' });
  assert.deepEqual(h.whatOf(item({ kind: 'tool_run', summary: null, route: '/v1/sandbox/execute' })), { title: 'Tool run', detail: 'POST /v1/sandbox/execute' });
  assert.deepEqual(h.whatOf(item({ kind: 'admin', summary: null, method: 'PUT', route: '/v1/admin/inference/roles/default' })), { title: 'PUT /v1/admin/inference/roles/default', detail: null });
  assert.deepEqual(h.whatOf(item({ kind: 'other', summary: null, method: null, route: null })), { title: 'Turn t1', detail: null });
  assert.deepEqual(['chat', 'tool_run', 'admin', 'other'].map((k) => h.kindLabel(k as Item['kind'])), ['Chat', 'Tool run', 'Admin', 'Request']);
});

test('who, when, how it ended', () => {
  assert.equal(h.whoOf(item(), 'u1'), 'you');
  assert.equal(h.whoOf(item(), 'admin'), 'u1');
  assert.equal(h.whoOf(item(), undefined), 'u1');
  assert.deepEqual(h.outcomeOf(item()), { label: 'completed', tone: 'ok' });
  assert.deepEqual(h.outcomeOf(item({ outcome: 'blocked' })), { label: 'blocked', tone: 'warn' });
  assert.deepEqual(h.outcomeOf(item({ outcome: 'failed', http_status: 502 })), { label: 'failed (502)', tone: 'bad' });
  assert.deepEqual(h.outcomeOf(item({ outcome: 'failed', http_status: null })), { label: 'failed', tone: 'bad' });
  assert.deepEqual(h.outcomeOf(item({ http_status: 400 })), { label: 'refused (400)', tone: 'warn' });
  assert.equal(h.receiptState(item()), 'sealed');
  assert.equal(h.receiptState(item({ status: 'verified', verified_at: '2030-01-01T10:01:00.000Z' })), 'verified');
  const now = new Date('2030-01-01T12:00:00.000Z');
  assert.ok(!h.whenOf('2030-01-01T10:00:00.000Z', now, 'en-GB').includes('2030'), 'today: the time only');
  assert.match(h.whenOf('2029-06-01T10:00:00.000Z', now, 'en-GB'), /2029/);
  assert.equal(h.whenOf('not a date', now), '');
  assert.equal(h.emptyText('chat', ''), 'No chats with a sealed receipt yet.');
  assert.equal(h.emptyText('all', ' zebra '), 'Nothing matches “zebra”.');
});

test('an open receipt closes when the user leaves the page; a replace (the page renamed) keeps it', async () => {
  const calls: string[] = [];
  (globalThis as { history?: unknown }).history = { pushState: (_s: unknown, _t: string, p: string) => calls.push(`push ${p}`), replaceState: (_s: unknown, _t: string, p: string) => calls.push(`replace ${p}`) };
  const { useApp } = await loadRenderer<Store>('store/index.ts');
  const s = () => useApp.getState();
  s().pathChanged('/chat');
  s().receiptOpened('t1');
  s().navigated('/chat/s1', { replace: true });
  assert.equal(s().openReceipt, 't1', 'a new chat given its id is the same page');
  s().navigated('/chat/s1');
  assert.equal(s().openReceipt, 't1', 'no move, no close');
  s().navigated('/receipts');
  assert.equal(s().openReceipt, null, 'leaving the page closes it');
  s().receiptOpened('t2');
  s().pathChanged('/receipts');
  assert.equal(s().openReceipt, 't2');
  s().pathChanged('/chat/s1');
  assert.equal(s().openReceipt, null, 'back/forward to another page closes it');
  assert.deepEqual(calls, ['replace /chat/s1', 'push /receipts']);
});
