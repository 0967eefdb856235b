/**
 * Receipts that read like history (issue 13 item 7), at the audit service (port 0, temp data dir,
 * real SQLite): sealed turns carry what they were (kind, summary, method, route, who, when, outcome);
 * `GET /v1/receipts` filters by kind and searches (case-insensitive, `%` and `_` literal), pages
 * within a filter, keeps its old answer without parameters, never shows a user another user's turns
 * or summaries, and refuses a user's `user_id` for someone else with 403 `admin_required`. Turns
 * sealed before migration 0002 are filled by the migration.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { start } from '../../services/audit/src/index.js';
import type { ReceiptListItem, ReceiptPage } from '../../services/audit/src/contracts.js';
import { ADMIN, SERVICE, USER, auditConfig, call, event, newId, removeDir } from '../helpers/audit.js';
import type { TurnEvent } from '../../services/shared/events/turn-events.js';

type Spec = { owner: string; events: (turn: string) => TurnEvent[] };

const gw = (turn: string, owner: string, method: string, path: string, status = 200): { start: TurnEvent; end: TurnEvent } => ({
  start: event(turn, 'turn_started', { method, path, route: '/v1/*', correlation_id: 'c' }, { principal_id: owner }),
  end: event(turn, status >= 500 ? 'turn_failed' : 'turn_sealed', { status, duration_ms: 1 }, { principal_id: owner }),
});
const rt = (turn: string, owner: string, type: Parameters<typeof event>[1], payload: unknown): TurnEvent =>
  event(turn, type, payload, { principal_id: owner, emitter_service: 'agent-runtime' });

function chat(owner: string, text: string | null): Spec {
  return {
    owner,
    events: (t) => {
      const g = gw(t, owner, 'POST', '/v1/chat');
      return [g.start, rt(t, owner, 'prompt_generated', { step: 1, ...(text === null ? {} : { summary: text }) }), rt(t, owner, 'model_invoked', { step: 1 }), g.end];
    },
  };
}
const request = (owner: string, method: string, path: string, status = 200): Spec => ({ owner, events: (t) => { const g = gw(t, owner, method, path, status); return [g.start, g.end]; } });
const toolOnly = (owner: string, tool: string): Spec => ({
  owner, events: (t) => [rt(t, owner, 'tool_called', { tool }), rt(t, owner, 'tool_returned', { tool }), rt(t, owner, 'turn_sealed', {})],
});

async function seal(base: string, specs: Spec[]): Promise<string[]> {
  const ids: string[] = [];
  for (const s of specs) {
    const turn = newId();
    const evs = s.events(turn);
    const r = await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: evs });
    assert.equal(r.body.accepted, evs.length, JSON.stringify(r.body));
    ids.push(turn);
  }
  return ids;
}

async function list(base: string, headers: Record<string, string>, query = ''): Promise<ReceiptListItem[]> {
  const r = await call(base, 'GET', `/v1/receipts${query}`, headers);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as ReceiptPage).items;
}

test('history fields, kind filters, search, paging and who sees what', async (t) => {
  const cfg = auditConfig();
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  const base = `http://127.0.0.1:${svc.port}`;
  const A = 'user-a';
  const B = 'user-b';
  const [aChat1, aChat2, aBlocked, bChat, aTool, aSandbox, adminAct, aOther, aPct] = await seal(base, [
    chat(A, 'Plan the Quarterly budget review'), chat(A, 'Second question about zebras_and_more'), chat(A, null),
    chat(B, 'B secret musings about budget'), toolOnly(A, 'web_search'), request(A, 'POST', '/v1/sandbox/execute', 400),
    request('admin-1', 'PUT', '/v1/admin/inference/roles/default'), request(A, 'GET', '/v1/receipts'), chat(A, 'A 100% sure plan'),
  ]);

  // Without parameters: the old answer (every kind, the caller's own, newest first) with the new fields.
  const all = await list(base, USER(A));
  assert.deepEqual(all.map((r) => r.turn_id), [aPct, aOther, aSandbox, aTool, aBlocked, aChat2, aChat1]);
  const first = all.at(-1)!;
  for (const k of ['id', 'turn_id', 'tier', 'status', 'sealed', 'receipt_url', 'proof_url', 'bundle_url', 'sealed_at', 'verified_at']) assert.ok(k in first, k);
  assert.equal(first.status, 'sealed');
  assert.deepEqual(
    { kind: first.kind, summary: first.summary, method: first.method, route: first.route, user_id: first.user_id, outcome: first.outcome, http_status: first.http_status },
    { kind: 'chat', summary: 'Plan the Quarterly budget review', method: 'POST', route: '/v1/chat', user_id: A, outcome: 'completed', http_status: 200 },
  );
  assert.match(first.created_at, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(await list(base, USER(A), '?kind=all'), all);

  // Kinds.
  assert.deepEqual((await list(base, USER(A), '?kind=chat')).map((r) => r.turn_id), [aPct, aBlocked, aChat2, aChat1]);
  const tools = await list(base, USER(A), '?kind=tool_run');
  assert.deepEqual(tools.map((r) => [r.turn_id, r.summary, r.method, r.route, r.http_status]), [
    [aSandbox, null, 'POST', '/v1/sandbox/execute', 400], [aTool, 'web_search', null, null, null],
  ]);
  assert.deepEqual((await list(base, USER(A), '?kind=other')).map((r) => r.turn_id), [aOther]);
  assert.deepEqual(await list(base, USER(A), '?kind=admin'), [], 'a user sees no one else\'s admin actions');
  const admin = await list(base, ADMIN(), '?kind=admin');
  assert.deepEqual(admin.map((r) => [r.turn_id, r.method, r.route, r.user_id]), [[adminAct, 'PUT', '/v1/admin/inference/roles/default', 'admin-1']]);
  assert.equal((await call(base, 'GET', '/v1/receipts?kind=bogus', USER(A))).status, 400);

  // Search: case-insensitive substring of summary / route / method / turn id; % and _ are literal.
  assert.deepEqual((await list(base, USER(A), '?q=quarterly')).map((r) => r.turn_id), [aChat1]);
  assert.deepEqual((await list(base, USER(A), '?q=SANDBOX&kind=tool_run')).map((r) => r.turn_id), [aSandbox]);
  assert.deepEqual((await list(base, USER(A), `?q=${aOther}`)).map((r) => r.turn_id), [aOther]);
  assert.deepEqual((await list(base, USER(A), '?q=100%25')).map((r) => r.turn_id), [aPct], '% matches itself only');
  assert.deepEqual((await list(base, USER(A), '?q=%25')).map((r) => r.turn_id), [aPct]);
  assert.deepEqual((await list(base, USER(A), '?q=zebras_and')).map((r) => r.turn_id), [aChat2]);
  assert.deepEqual(await list(base, USER(A), '?q=zebras%5Fand%5Fmore%5C'), [], 'a trailing backslash is literal too');
  assert.deepEqual(await list(base, USER(A), '?q=zebrasXand'), [], '_ is not a wildcard');

  // No cross-user leak: A never sees B's turn or its words; the admin does.
  assert.deepEqual((await list(base, USER(A), '?q=budget')).map((r) => r.turn_id), [aChat1]);
  assert.deepEqual(await list(base, USER(A), '?q=musings'), []);
  assert.ok(!JSON.stringify(await list(base, USER(A), '?limit=200')).includes('musings'));
  assert.deepEqual((await list(base, ADMIN(), '?q=budget')).map((r) => r.turn_id), [bChat, aChat1]);
  assert.deepEqual((await list(base, ADMIN(), `?user_id=${B}`)).map((r) => r.turn_id), [bChat]);
  assert.deepEqual((await list(base, USER(A), `?user_id=${A}&kind=chat`)).length, 4, 'a user may name themselves');
  const refused = await call(base, 'GET', `/v1/receipts?user_id=${B}`, USER(A));
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'admin_required');

  // Paging within a filter: no duplicates, no other kinds.
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 10; i++) {
    const r = await call(base, 'GET', `/v1/receipts?kind=chat&limit=1${cursor ? `&cursor=${cursor}` : ''}`, USER(A));
    const p = r.body as ReceiptPage;
    seen.push(...p.items.map((x) => x.turn_id));
    cursor = p.next_cursor;
    if (!cursor) break;
  }
  assert.deepEqual(seen, [aPct, aBlocked, aChat2, aChat1]);
});

test('migration 0002 fills the history of turns sealed before it (no summaries)', async (t) => {
  const cfg = auditConfig();
  t.after(() => removeDir(cfg.dataDir));
  const before = await start(cfg);
  let base = `http://127.0.0.1:${before.port}`;
  const [chatTurn, adminTurn, toolTurn, failed, blocked, toolBlocked] = await seal(base, [
    chat('user-a', 'not stored before 0002'), request('admin-1', 'POST', '/v1/admin/users'), toolOnly('user-a', 'bash'),
    request('user-a', 'POST', '/v1/sandbox/execute', 502),
    { owner: 'user-a', events: (tt) => { const g = gw(tt, 'user-a', 'POST', '/v1/chat/stream'); return [g.start, event(tt, 'guardrail_verdict', { decision: 'block', source: 'user' }, { principal_id: 'user-a', emitter_service: 'guardrail' }), g.end]; } },
    { owner: 'user-a', events: (tt) => { const g = gw(tt, 'user-a', 'POST', '/v1/chat'); return [g.start, event(tt, 'guardrail_verdict', { decision: 'block', source: 'tool' }, { principal_id: 'user-a', emitter_service: 'guardrail' }), g.end]; } },
  ]);
  await before.close();

  // Take the file back to schema 0001 (the columns and indexes of 0002 gone, and what later
  // migrations added: 0003's egress cursor and index, 0004's signature and checkpoint tables; user_version 1).
  const db = new Database(join(cfg.dbDir, 'audit.sqlite'));
  db.exec('DROP INDEX turns_sealed_kind; DROP INDEX turns_sealed_owner; DROP INDEX audit_log_egress; DROP TABLE egress_log_cursor;');
  db.exec('DROP TABLE envelope_signatures; DROP TABLE receipt_checkpoints;');
  for (const c of ['kind', 'summary', 'method', 'route', 'outcome', 'http_status', 'started_at']) db.exec(`ALTER TABLE turns DROP COLUMN ${c}`);
  db.pragma('user_version = 1');
  db.close();

  const after = await start(cfg);
  t.after(async () => { await after.close(); });
  base = `http://127.0.0.1:${after.port}`;
  const items = await list(base, ADMIN());
  const by = new Map(items.map((r) => [r.turn_id, r]));
  const pick = (id: string) => { const r = by.get(id)!; return [r.kind, r.summary, r.method, r.route, r.outcome, r.http_status]; };
  assert.deepEqual(pick(chatTurn), ['chat', null, 'POST', '/v1/chat', 'completed', 200]);
  assert.deepEqual(pick(adminTurn), ['admin', null, 'POST', '/v1/admin/users', 'completed', 200]);
  assert.deepEqual(pick(toolTurn), ['tool_run', null, null, null, 'completed', null]);
  assert.deepEqual(pick(failed), ['tool_run', null, 'POST', '/v1/sandbox/execute', 'failed', 502]);
  assert.deepEqual(pick(blocked), ['chat', null, 'POST', '/v1/chat/stream', 'blocked', 200]);
  assert.deepEqual(pick(toolBlocked), ['chat', null, 'POST', '/v1/chat', 'completed', 200], 'a blocked tool result does not block the turn');
  assert.ok(by.get(chatTurn)!.created_at <= by.get(chatTurn)!.sealed_at!);
  assert.deepEqual((await list(base, ADMIN(), '?kind=admin')).map((r) => r.turn_id), [adminTurn]);
  // New seals after the migration carry their summary.
  const [fresh] = await seal(base, [chat('user-a', 'fresh words')]);
  assert.equal((await list(base, USER('user-a'), '?q=fresh'))[0]?.turn_id, fresh);
});
