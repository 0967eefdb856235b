/**
 * Issue 21 item 1 (issue 11 item 7): the turn-event outbox on PostgreSQL, shared by several
 * instances of one service. Each instance keeps and ships only its own rows; rows of an instance
 * that died (no renewal) are claimed by exactly one other instance once its lease ran out; a
 * graceful close releases the rest at once; an event removed before its INSERT landed leaves no
 * row; and end to end, turn-event clients over the shared outbox deliver every event to audit
 * exactly once, including the events of a crashed instance while audit was away.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { openPgOutbox, type PgTurnOutbox } from '../../services/shared/events/outbox-pg.js';
import { durablePgTurnEvents } from '../../services/shared/events/outbox-pg-events.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { TurnEventClient, type TurnEvent } from '../../services/shared/events/turn-events.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MIGRATIONS = join(process.cwd(), 'migrations');
const missing = postgresMissing();
const KEY = 'outbox-test-principal-key-0123456789abcdef';
let n = 0;
const ev = (turn = 'T1'): TurnEvent => ({
  turn_id: turn, event_id: `01J${String(++n).padStart(23, '0')}`, tenant_id: 't', principal_id: 'u', emitter_service: 'gateway', emitter_instance: null,
  occurred_at: new Date().toISOString(), sequence_in_service: n, payload_type: 'turn_started', payload_json: '{}',
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(fn: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) { if (Date.now() > end) throw new Error('condition not met in time'); await sleep(25); }
}

describe('turn outbox on PostgreSQL', { skip: missing ?? false }, () => {
  let pg: TestPostgres;
  const open: PgTurnOutbox[] = [];
  const outbox = async (schema: string, leaseMs = 400): Promise<PgTurnOutbox> => {
    const o = await openPgOutbox({ url: pg.url, schema }, MIGRATIONS, { leaseMs, sweepMs: 100 });
    open.push(o);
    return o;
  };
  before(async () => { pg = await startPostgres(); });
  after(async () => { for (const o of open) await o.closeAsync(); await pg?.stop(); });

  test('instances keep their own rows; a dead instance\'s rows are claimed once; close releases at once', async () => {
    const a = await outbox('gw_claims');
    const b = await outbox('gw_claims');
    const events = [ev(), ev(), ev(), ev()];
    const last = a.append(events, Date.now());
    assert.equal(a.size, 4);
    assert.equal(await a.durable(), true);
    assert.equal((await pg.sql('SELECT 1 FROM gw_claims.turn_outbox')).length, 4);
    assert.equal(a.removeThrough(last - 3), 1);
    assert.equal(await a.durable(), true);
    assert.deepEqual((await pg.sql<{ event_id: string }>('SELECT event_id FROM gw_claims.turn_outbox ORDER BY seq')).map((r) => r.event_id), events.slice(1).map((e) => e.event_id));
    await sleep(700);
    assert.equal(b.size, 0, 'a live instance renews its lease: nobody claims its rows');

    await a.abandon();
    const c = await outbox('gw_claims');
    await until(() => b.size + c.size === 3);
    await sleep(300);
    const ids = [...b.head(10), ...c.head(10)].map((q) => q.event.event_id).sort();
    assert.deepEqual(ids, events.slice(1).map((e) => e.event_id).sort(), 'each row claimed by exactly one instance');
    assert.deepEqual(b.head(10).map((q) => q.event), events.filter((e) => b.head(10).some((q) => q.event.event_id === e.event_id)), 'claimed events round-trip');

    const d = await outbox('gw_claims', 60_000);
    const extra = ev();
    b.append([extra], Date.now());
    await b.closeAsync();
    await until(() => d.head(10).some((q) => q.event.event_id === extra.event_id) || c.head(10).some((q) => q.event.event_id === extra.event_id), 2000);
    assert.ok(true, 'a closed instance\'s rows are claimed without waiting for its lease');
  });

  test('an event removed before its INSERT landed leaves no row', async () => {
    const a = await outbox('gw_race');
    const p = a.append([ev(), ev()], Date.now());
    a.removeThrough(p);
    const q = a.append([ev()], Date.now());
    a.dropOldest(1);
    assert.equal(a.size, 0);
    assert.equal(q, p + 1);
    await a.durable();
    await sleep(50);
    assert.equal((await pg.sql('SELECT 1 FROM gw_race.turn_outbox')).length, 0);
  });

  test('end to end: two clients deliver every event exactly once, a crashed instance\'s events too', async () => {
    let down = true;
    const got: string[] = [];
    const audit: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
      req.on('end', () => {
        if (down) { res.writeHead(503); res.end(); return; }
        const evs = (JSON.parse(body) as { events: TurnEvent[] }).events;
        got.push(...evs.map((e) => e.event_id));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ accepted: evs.length, rejected: [] }));
      });
    });
    await new Promise<void>((r) => audit.listen(0, '127.0.0.1', r));
    const addr = audit.address();
    const auditUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    const client = (queue: PgTurnOutbox, batchDelayMs = 5) => new TurnEventClient({ service: 'gateway', auditUrl, tenantId: 't', principalKeys: [KEY], queue, batchDelayMs });
    try {
      // Instance A commits events to the outbox and dies before its first send (a killed process sends nothing more).
      const qa = await outbox('gw_e2e');
      const ca = client(qa, 60_000);
      const crashed = Array.from({ length: 5 }, () => ca.emit('T-crash', 'u', 'turn_started', {}));
      ca.commit();
      assert.equal(await qa.durable(), true);
      ca.close();
      await qa.abandon();
      // Audit is back; instances B and C run and emit; one of them claims A's rows.
      down = false;
      const clients: TurnEventClient[] = [];
      for (let i = 0; i < 2; i++) {
        let c: TurnEventClient | null = null;
        const q = await openPgOutbox({ url: pg.url, schema: 'gw_e2e' }, MIGRATIONS, { leaseMs: 400, sweepMs: 100, onAdopt: () => { void c?.flush(); } });
        open.push(q);
        c = client(q);
        clients.push(c);
      }
      const emitted: string[] = [];
      for (let i = 0; i < 40; i++) emitted.push(clients[i % 2]!.emit(`T${i}`, 'u', 'turn_sealed', { i }));
      for (const c of clients) c.commit();
      assert.ok(await clients[0]!.deliver(5000));
      assert.ok(await clients[1]!.deliver(5000));
      await until(() => got.length >= 45, 5000);
      await sleep(300);
      assert.equal(new Set(got).size, got.length, 'no event shipped twice');
      assert.deepEqual([...got].sort(), [...crashed, ...emitted].sort());
      await until(async () => (await pg.sql('SELECT 1 FROM gw_e2e.turn_outbox')).length === 0, 2000);
      for (const c of clients) await c.shutdown(1000);
    } finally {
      await new Promise<void>((r) => audit.close(() => r()));
    }
  });

  test('the wiring the gateway and the runtime use: the client over the shared outbox; its closer ends the pool after shutdown', async () => {
    const closers: Array<() => Promise<void>> = [];
    const urls = Object.fromEntries(SERVICE_NAMES.map((s) => [s, 'http://127.0.0.1:9'])) as Record<ServiceName, string>;
    const logs: string[] = [];
    const log = { info: (_o: object, m: string) => { logs.push(m); }, error: (_o: object, m: string) => { logs.push(m); } };
    const events = await durablePgTurnEvents({ url: pg.url, schema: 'gateway' }, { migrationsDir: MIGRATIONS, serviceUrls: urls, tenantId: 't', principalKeys: [KEY], useGrpc: false }, 'gateway', log, { batchDelayMs: 60_000 }, (fn) => { closers.push(fn); });
    assert.equal(closers.length, 1);
    events.emit('T-w', 'u', 'turn_started', {});
    // What the gateway's onSend waits for before an answer's first (or last) byte: the row is stored when it resolves.
    const stored = events.commitDurable();
    assert.ok(stored, 'a background-storing outbox hands back its write');
    assert.equal(await stored, true);
    assert.equal((await pg.sql('SELECT 1 FROM gateway.turn_outbox')).length, 1, 'stored when commitDurable resolved, no polling');
    // deliver() to an unreachable audit answers false after its timeout, with the rows stored all the same.
    events.emit('T-w', 'u', 'turn_sealed', {});
    assert.equal(await events.deliver(100), false);
    assert.equal((await pg.sql('SELECT 1 FROM gateway.turn_outbox')).length, 2);
    await events.shutdown(50);
    for (const c of closers.reverse()) await c();
    const [row] = await pg.sql<{ lease_until: number }>('SELECT lease_until FROM gateway.turn_outbox');
    assert.equal(Number(row?.lease_until), 0, 'undelivered rows are released for the next instance at close');
    assert.deepEqual((await pg.sql<{ version: number }>('SELECT version FROM gateway.turn_outbox_migrations')).map((r) => r.version), [1]);
  });
});
