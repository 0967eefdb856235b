/**
 * The durable turn-event outbox (issue 11 item 7; services/shared/events/outbox-store.ts,
 * event-queue.ts, turn-events.ts, outbox.ts): events are in SQLite when `emit` returns, survive a
 * client that is dropped without draining (a killed process), are delivered in order by the next
 * client at once, leave the outbox only when audit answered, and the bounds drop the oldest with a
 * report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEventQueue, type TurnEventQueue } from '../../../services/shared/events/event-queue.js';
import { openTurnOutbox } from '../../../services/shared/events/outbox-store.js';
import { durableTurnEvents } from '../../../services/shared/events/outbox.js';
import { TurnEventClient, type TurnEvent } from '../../../services/shared/events/turn-events.js';
import { serviceUrls } from '../../helpers/service-configs.js';

const MIGRATIONS = join(process.cwd(), 'migrations');

/** A stand-in audit: records each batch; `status` is what it answers. */
async function fakeAudit(): Promise<{ url: string; batches: TurnEvent[][]; status: number; close(): Promise<void> }> {
  const a = { batches: [] as TurnEvent[][], status: 200 };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString('utf8'); });
    req.on('end', () => {
      if (a.status !== 200) { res.writeHead(a.status); res.end(); return; }
      const events = (JSON.parse(raw) as { events: TurnEvent[] }).events;
      a.batches.push(events);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ accepted: events.length, duplicates: 0, rejected: [] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return Object.assign(a, { url, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) });
}

function tempDir(): string { return mkdtempSync(join(tmpdir(), 'outbox-test-')); }

const ev = (i: number): TurnEvent => ({
  turn_id: `T${i}`, event_id: `E${i}`, tenant_id: 'acme', principal_id: 'u', emitter_service: 'gateway', emitter_instance: null,
  occurred_at: new Date(0).toISOString(), sequence_in_service: i, payload_type: 'turn_started', payload_json: '{}',
});

for (const [name, make] of [
  ['memory queue', (): { q: TurnEventQueue; reopen: (() => TurnEventQueue) | null; done(): void } => ({ q: new MemoryEventQueue(), reopen: null, done: () => undefined })],
  ['SQLite outbox', () => {
    const dir = tempDir();
    const open = () => openTurnOutbox({ dbDir: dir, migrationsDir: MIGRATIONS, service: 'gateway' });
    return { q: open(), reopen: open, done: () => rmSync(dir, { recursive: true, force: true }) };
  }],
] as const) {
  test(`${name}: ordered head, removal through a position, size, bounds`, () => {
    const { q, reopen, done } = make();
    try {
      const pos = [1, 2, 3, 4, 5].map((i) => q.append([ev(i)], 1000 * i));
      for (let i = 1; i < pos.length; i++) assert.ok(pos[i]! > pos[i - 1]!);
      assert.equal(q.size, 5);
      assert.deepEqual(q.head(2).map((h) => h.event.event_id), ['E1', 'E2']);
      assert.equal(q.removeThrough(pos[1]!), 2);
      assert.equal(q.dropOldest(1), 1);
      assert.deepEqual(q.head(10).map((h) => h.event), [ev(4), ev(5)]);
      assert.equal(q.dropOlderThan(4500), 1);
      assert.equal(q.size, 1);
      assert.equal(q.removeThrough(pos[4]!), 1);
      assert.equal(q.size, 0);
      // Emptied, a queue never reuses a position.
      assert.ok(q.append([ev(6)], 6000) > pos[4]!);
      assert.equal(q.append([], 6000), 0);
      if (reopen) {
        q.close();
        assert.equal(q.isOpen, false);
        const again = reopen();
        assert.equal(again.size, 1);
        assert.deepEqual(again.head(5).map((h) => h.event), [ev(6)]);
        assert.ok(again.append([ev(7), ev(8)], 7000) > pos[4]! + 2);
        assert.deepEqual(again.head(5).map((h) => h.event.event_id), ['E6', 'E7', 'E8']);
        again.close();
      } else q.close();
    } finally { done(); }
  });
}

test('events emitted through the outbox survive a client that never flushed, and the next one delivers them at once, in order', async (t) => {
  const dir = tempDir();
  const audit = await fakeAudit();
  t.after(async () => { await audit.close(); rmSync(dir, { recursive: true, force: true }); });
  const cfg = { dbDir: join(dir, 'db'), migrationsDir: MIGRATIONS, serviceUrls: serviceUrls({ audit: audit.url }), tenantId: 'acme', principalKeys: ['k'.repeat(32)] };
  const logs: Array<[string, object]> = [];
  const log = { info: (o: object, m: string) => logs.push([m, o]), error: (o: object, m: string) => logs.push([m, o]) };

  // A first "process": a batch delay far beyond the test, then dropped without close or drain (SIGKILL).
  const first = durableTurnEvents(cfg, 'gateway', log, { batchDelayMs: 3_600_000 });
  const ids = [first.emit('T1', 'u', 'turn_started', { n: 1 }), first.emit('T1', 'u', 'turn_sealed', { status: 200 })];
  const peek = openTurnOutbox({ dbDir: cfg.dbDir, migrationsDir: MIGRATIONS, service: 'gateway' });
  assert.equal(peek.size, 0, 'emitted events are staged until a commit');
  // What the gateway does as an answer completes: both events in one commit.
  first.commit();
  ids.push(first.emit('T2', 'u', 'turn_started', { n: 2 }));
  first.commit();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(audit.batches.length, 0, 'nothing was sent by the first client');
  // The rows are committed: a second connection sees them while the first is still open.
  assert.deepEqual(peek.head(10).map((h) => h.event.event_id), ids);
  peek.close();
  first.close();

  const second = durableTurnEvents(cfg, 'gateway', log, { batchDelayMs: 3_600_000 });
  t.after(() => second.shutdown(0));
  assert.deepEqual(logs.find(([m]) => /previous run/.test(m))?.[1], { pending: 3 });
  const deadline = Date.now() + 5000;
  while (second.pending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(second.pending, 0);
  assert.deepEqual(audit.batches.flat().map((e) => e.event_id), ids);
  assert.deepEqual(audit.batches.flat().map((e) => e.payload_type), ['turn_started', 'turn_sealed', 'turn_started']);
});

test('an unacknowledged batch stays in the outbox and is retried; deliver waits for it', async (t) => {
  const dir = tempDir();
  const audit = await fakeAudit();
  t.after(async () => { await audit.close(); rmSync(dir, { recursive: true, force: true }); });
  const queue = openTurnOutbox({ dbDir: dir, migrationsDir: MIGRATIONS, service: 'agent-runtime' });
  const c = new TurnEventClient({ service: 'agent-runtime', auditUrl: audit.url, tenantId: 'acme', principalKeys: ['k'.repeat(32)], queue });
  t.after(() => c.shutdown(0));
  audit.status = 503;
  c.emit('T1', 'u', 'model_invoked', {});
  assert.equal(await c.deliver(300), false);
  assert.equal(queue.size, 1, 'still in the outbox');
  audit.status = 200;
  c.emit('T1', 'u', 'model_response', {});
  assert.equal(await c.deliver(5000), true);
  assert.equal(queue.size, 0);
  assert.deepEqual(audit.batches.flat().map((e) => e.payload_type), ['model_invoked', 'model_response']);
});

test('the bounds drop the oldest events with a report', async (t) => {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const losses: Array<[number, string]> = [];
  const queue = openTurnOutbox({ dbDir: dir, migrationsDir: MIGRATIONS, service: 'gateway' });
  const c = new TurnEventClient({
    service: 'gateway', auditUrl: 'http://127.0.0.1:9', tenantId: 'acme', principalKeys: ['k'.repeat(32)], queue,
    maxQueue: 3, maxAgeMs: 60_000, batchDelayMs: 3_600_000, onLoss: (n, reason) => losses.push([n, reason]),
  });
  for (let i = 0; i < 4; i++) c.emit(`T${i}`, 'u', 'turn_started', {});
  c.commit();
  c.emit('T4', 'u', 'turn_started', {});
  c.commit();
  assert.equal(c.pending, 3);
  assert.deepEqual(queue.head(5).map((h) => h.event.turn_id), ['T2', 'T3', 'T4']);
  assert.deepEqual(losses.map(([n]) => n), [1, 1]);
  assert.match(losses[0]![1], /oldest were dropped/);
  // Age: with a cap of 0 every waiting row is too old, and the next start drops them before sending.
  c.close();
  queue.close();
  await new Promise((r) => setTimeout(r, 5));
  const again = openTurnOutbox({ dbDir: dir, migrationsDir: MIGRATIONS, service: 'gateway' });
  const aged = new TurnEventClient({
    service: 'gateway', auditUrl: 'http://127.0.0.1:9', tenantId: 'acme', principalKeys: ['k'.repeat(32)], queue: again,
    maxAgeMs: 0, batchDelayMs: 3_600_000, onLoss: (n, reason) => losses.push([n, reason]),
  });
  t.after(() => aged.shutdown(0));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(aged.pending, 0);
  assert.equal(losses.at(-1)![0], 3);
  assert.match(losses.at(-1)![1], /older than 0 s/);
});
