/**
 * The renderer's data layer: the query store behind `useQuery` (deduplicated loads, prefix
 * invalidation, priming), receipt status through it (pending poll, sealed, verified), gateway
 * errors as `ApiError`, and the user action runner behind `useAction`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRenderer } from './load.js';

interface State<T> { data: T | undefined; error: Error | null; loading: boolean; updatedAt: number }
interface Store {
  state<T>(key: string): State<T>;
  subscribe(key: string, fn: () => void, fetcher?: () => Promise<unknown>): () => void;
  load(key: string, fetcher?: () => Promise<unknown>): Promise<void>;
  ensure(key: string, fetcher?: () => Promise<unknown>): Promise<void>;
  invalidate(prefix: string): void;
  prime<T>(key: string, data: T): void;
  clear(): void;
  readonly size: number;
}
interface StoreModule { QueryStore: new (now?: () => number) => Store; EMPTY_STATE: State<never> }
type Status = 'pending' | 'sealed' | 'verified' | 'failed' | 'unknown';
interface ReceiptModule {
  receiptKey(turn: string): string;
  verificationKey(turn: string): string;
  receiptStatus(initial: Status, detail: { data: { receipt: { status: string } } | undefined; error: unknown }, v: { ok: boolean } | undefined, isNotFound: (e: unknown) => boolean): Status;
  pollReceipt<D>(get: () => Promise<D>, isNotFound: (e: unknown) => boolean, sleep?: (ms: number) => Promise<void>, poll?: { firstMs: number; maxMs: number; factor: number; attempts: number }): Promise<D>;
  POLL: { firstMs: number; maxMs: number; factor: number; attempts: number };
}
interface HttpModule {
  ApiError: new (status: number, code: string, message: string) => Error & { status: number; code: string };
  errorOf(res: Response): Promise<Error & { status: number; code: string }>;
}
interface ActionModule {
  IDLE: { pending: null; error: null };
  errorText(e: unknown): string;
  runAction<T extends string>(fn: () => Promise<unknown>, tag: T, set: (s: { pending: T | null; error: string | null }) => void, message?: (e: unknown) => string): Promise<boolean>;
}

const { QueryStore, EMPTY_STATE } = await loadRenderer<StoreModule>('api/query-store.ts');
const receipts = await loadRenderer<ReceiptModule>('receipts/receipt-status.ts');
const http = await loadRenderer<HttpModule>('api/http.ts');
const action = await loadRenderer<ActionModule>('app/action.ts');

/** A promise and its resolvers. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

test('query store: an unknown key is the empty state; a load is shared and recorded', async () => {
  const q = new QueryStore(() => 1000);
  assert.equal(q.state('/a'), EMPTY_STATE);
  assert.deepEqual(EMPTY_STATE, { data: undefined, error: null, loading: true, updatedAt: 0 });
  let calls = 0;
  const d = deferred<string>();
  const seen: Array<State<string>> = [];
  q.subscribe('/a', () => seen.push(q.state<string>('/a')), () => { calls++; return d.promise; });
  const first = q.ensure('/a');
  const second = q.ensure('/a');
  void q.load('/a');
  d.resolve('A');
  await Promise.all([first, second]);
  assert.equal(calls, 1, 'concurrent loads share one fetch');
  assert.deepEqual(q.state('/a'), { data: 'A', error: null, loading: false, updatedAt: 1000 });
  await q.ensure('/a');
  assert.equal(calls, 1, 'ensure does not load what was loaded');
  await q.load('/a');
  assert.equal(calls, 2, 'load always loads');
  assert.ok(seen.length >= 2, 'listeners hear every change');
  assert.notEqual(seen[0], seen.at(-1), 'states are replaced, not mutated');
});

test('query store: a failed load keeps the old data and records the error; the latest fetcher wins', async () => {
  const q = new QueryStore();
  await q.load('/b', async () => 'old');
  await q.load('/b', async () => { throw new Error('down'); });
  const s = q.state<string>('/b');
  assert.equal(s.data, 'old');
  assert.equal(s.error?.message, 'down');
  assert.equal(s.loading, false);
  await q.load('/b', async () => { throw 'plain'; });
  assert.equal(q.state('/b').error?.message, 'plain', 'non-Error values become Errors');
  await q.load('/b', async () => 'new');
  assert.equal(q.state('/b').error, null);
  q.subscribe('/b', () => {}, async () => 'from-subscribe');
  await q.load('/b');
  assert.equal(q.state('/b').data, 'from-subscribe');
});

test('query store: invalidate refetches watched keys under the prefix and forgets the others', async () => {
  const q = new QueryStore();
  const counts: Record<string, number> = {};
  const f = (k: string) => async () => { counts[k] = (counts[k] ?? 0) + 1; return k; };
  const off = q.subscribe('/v1/memory?limit=1', () => {}, f('list'));
  await q.load('/v1/memory?limit=1');
  await q.load('/v1/memory/search?q=x', f('search'));
  await q.load('/v1/sessions', f('sessions'));
  q.subscribe('/v1/sessions', () => {});
  q.invalidate('/v1/memory');
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(counts.list, 2, 'watched: refetched');
  assert.equal(q.state('/v1/memory/search?q=x'), EMPTY_STATE, 'unwatched: forgotten');
  assert.equal(counts.sessions, 1, 'other prefixes untouched');
  off();
  q.invalidate('/v1/memory?');
  assert.equal(q.state('/v1/memory?limit=1'), EMPTY_STATE);
  q.clear();
  assert.equal(q.size, 0);
});

test('query store: prime puts data without a fetch, also for a key nobody loaded', async () => {
  const q = new QueryStore(() => 5);
  let heard = 0;
  q.subscribe('/k', () => { heard++; });
  q.prime('/k', { ok: true });
  assert.deepEqual(q.state('/k'), { data: { ok: true }, error: null, loading: false, updatedAt: 5 });
  assert.equal(heard, 1);
  q.prime('/fresh', 1);
  assert.equal(q.state('/fresh').data, 1);
  await q.load('/fresh');
  assert.equal(q.state('/fresh').data, 1, 'no fetcher: nothing to reload');
  q.invalidate('/fresh');
  assert.equal(q.state('/fresh'), EMPTY_STATE);
});

const isNotFound = (e: unknown): boolean => e instanceof http.ApiError && e.status === 404;

test('receipt status: a verification wins, then the detail, a 404 is pending, other errors unknown', () => {
  const none = { data: undefined, error: null };
  const sealed = { data: { receipt: { status: 'sealed' } }, error: null };
  const verified = { data: { receipt: { status: 'verified' } }, error: null };
  assert.equal(receipts.receiptStatus('pending', none, undefined, isNotFound), 'pending');
  assert.equal(receipts.receiptStatus('sealed', none, undefined, isNotFound), 'sealed', 'nothing loaded: the initial status');
  assert.equal(receipts.receiptStatus('pending', sealed, undefined, isNotFound), 'sealed');
  assert.equal(receipts.receiptStatus('pending', verified, undefined, isNotFound), 'verified');
  assert.equal(receipts.receiptStatus('sealed', { data: undefined, error: new http.ApiError(404, 'not_found', 'x') }, undefined, isNotFound), 'pending');
  assert.equal(receipts.receiptStatus('pending', { data: undefined, error: new http.ApiError(500, 'internal_error', 'x') }, undefined, isNotFound), 'unknown');
  assert.equal(receipts.receiptStatus('pending', { ...sealed, error: new Error('refetch failed') }, undefined, isNotFound), 'sealed', 'data outlives a failed refetch');
  assert.equal(receipts.receiptStatus('pending', sealed, { ok: true }, isNotFound), 'verified');
  assert.equal(receipts.receiptStatus('pending', verified, { ok: false }, isNotFound), 'failed');
  assert.equal(receipts.receiptKey('a/b c'), '/v1/receipts/a%2Fb%20c');
  assert.equal(receipts.verificationKey('t1'), '/v1/receipts/t1/verify');
});

test('pollReceipt: asks again with back-off while 404, answers the detail, stops at other errors', async () => {
  const waits: number[] = [];
  const sleep = async (ms: number): Promise<void> => { waits.push(ms); };
  let n = 0;
  const detail = await receipts.pollReceipt(async () => {
    n++;
    if (n < 4) throw new http.ApiError(404, 'not_found', 'pending');
    return { receipt: { status: 'sealed' } };
  }, isNotFound, sleep);
  assert.deepEqual(detail, { receipt: { status: 'sealed' } });
  assert.equal(n, 4);
  assert.deepEqual(waits, [300, 450, 675]);
  assert.deepEqual(receipts.POLL, { firstMs: 300, maxMs: 5000, factor: 1.5, attempts: 40 });

  waits.length = 0;
  let tries = 0;
  await assert.rejects(receipts.pollReceipt(async () => { tries++; throw new http.ApiError(404, 'not_found', 'still pending'); }, isNotFound, sleep),
    (e: unknown) => isNotFound(e) && (e as Error).message === 'still pending');
  assert.equal(tries, 40, 'gives up after 40 tries');
  assert.equal(Math.max(...waits), 5000, 'the wait grows to 5 s and stays');

  let once = 0;
  await assert.rejects(receipts.pollReceipt(async () => { once++; throw new http.ApiError(503, 'not_ready', 'down'); }, isNotFound, sleep), /down/);
  assert.equal(once, 1);
});

test('errorOf: the gateway {error, code} body, other error shapes, and non-JSON answers', async () => {
  const json = (status: number, body: unknown): Response => new Response(JSON.stringify(body), { status, statusText: 'Status Text', headers: { 'content-type': 'application/json' } });
  const a = await http.errorOf(json(409, { error: 'email taken', code: 'conflict' }));
  assert.deepEqual([a.status, a.code, a.message, a.name], [409, 'conflict', 'email taken', 'ApiError']);
  const b = await http.errorOf(json(422, { message: 'bad thing' }));
  assert.deepEqual([b.code, b.message], ['http_422', 'bad thing']);
  const c = await http.errorOf(json(400, { error: { message: 'nested', type: 'invalid_request_error' } }));
  assert.equal(c.message, 'nested');
  const d = await http.errorOf(new Response('<html>oops</html>', { status: 502, statusText: 'Bad Gateway' }));
  assert.deepEqual([d.status, d.code, d.message], [502, 'http_502', 'Bad Gateway']);
  const e = await http.errorOf(new Response('', { status: 500 }));
  assert.equal(e.message, 'HTTP 500');
});

test('runAction: running, then the error text or nothing; never rejects', async () => {
  type Snap = { pending: string | null; error: string | null };
  const ok: Snap[] = [];
  assert.equal(await action.runAction(async () => 1, 'verify', (s) => ok.push(s)), true);
  assert.deepEqual(ok, [{ pending: 'verify', error: null }, { pending: null, error: null }]);
  const failed: Snap[] = [];
  assert.equal(await action.runAction(async () => { throw new Error('refused'); }, 'export', (s) => failed.push(s)), false);
  assert.deepEqual(failed, [{ pending: 'export', error: null }, { pending: null, error: 'refused' }]);
  const custom: Snap[] = [];
  await action.runAction(async () => { throw new http.ApiError(409, 'conflict', 'taken'); }, 'x', (s) => custom.push(s), (e) => `custom: ${(e as { code: string }).code}`);
  assert.equal(custom.at(-1)?.error, 'custom: conflict');
  assert.equal(action.errorText(new Error('m')), 'm');
  assert.equal(action.errorText('plain'), 'plain');
  assert.deepEqual(action.IDLE, { pending: null, error: null });
});
