/**
 * The gateway emits a turn's terminal event before its answer completes (issue 11 item 7;
 * services/gateway/src/plugins/turn-end.ts and `AdmissionSteps.sealBeforeSend`): a buffered answer
 * emits before any byte is sent; a streamed one when its stream ends, before the last byte of a
 * Content-Length body and before the end of a chunked one; an answer that broke off ends as
 * `turn_failed` in `onResponse`, and a turn never ends twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import client from 'prom-client';
import type { TurnEventClient } from '../../../services/shared/events/turn-events.js';
import { stampIdentity } from '../../../services/gateway/src/domain/identity.js';
import { AdmissionSteps, type GatewayState, type Limiter } from '../../../services/gateway/src/plugins/admission-steps.js';
import { isStreamPayload, runAtStreamEnd } from '../../../services/gateway/src/plugins/turn-end.js';
import { gatewayConfig } from '../../helpers/gateway-config.js';

test('isStreamPayload tells streams from strings, buffers and null', () => {
  assert.equal(isStreamPayload(Readable.from(['x'])), true);
  assert.equal(isStreamPayload(new PassThrough()), true);
  for (const p of ['x', Buffer.from('x'), null, undefined, { pipe: 1 }]) assert.equal(isStreamPayload(p), false);
});

test('holding the last byte: every byte but the last passes at once; the last comes only after atEnd', async () => {
  let ended = false;
  const src = new PassThrough();
  const out = runAtStreamEnd(src, true, () => { ended = true; });
  const seen: Buffer[] = [];
  out.on('data', (c: Buffer) => seen.push(c));
  src.write('hello ');
  src.write('world');
  await new Promise((r) => setImmediate(r));
  // Nothing is held back but one byte, and atEnd has not run while the stream is open.
  assert.equal(Buffer.concat(seen).toString(), 'hello worl');
  assert.equal(ended, false);
  src.end();
  await new Promise((r) => out.once('end', r));
  assert.equal(ended, true);
  assert.equal(Buffer.concat(seen).toString(), 'hello world');
});

test('holding the last byte: the whole body arrives intact; when atEnd runs, all but its last byte were passed on', async () => {
  const body = Buffer.from('a'.repeat(70_000) + 'b');
  const chunks = [body.subarray(0, 1), body.subarray(1, 40_000), body.subarray(40_000)];
  let seen = 0;
  let passedAtEnd = -1;
  const parts: Buffer[] = [];
  // Bytes passed on = those already read plus those buffered in the wrapper.
  const out = runAtStreamEnd(Readable.from(chunks), true, () => { passedAtEnd = seen + out.readableLength; });
  out.on('data', (c: Buffer) => { seen += c.length; parts.push(c); });
  await new Promise((r) => out.once('end', r));
  assert.ok(Buffer.concat(parts).equals(body));
  assert.equal(passedAtEnd, body.length - 1);
});

test('pass-through (chunked): bytes are not delayed; atEnd runs before the stream ends', async () => {
  let ended = false;
  const src = new PassThrough();
  const out = runAtStreamEnd(src, false, () => { ended = true; });
  const seen: string[] = [];
  out.on('data', (c: Buffer) => seen.push(c.toString()));
  src.write('data: {"type":"token"}\n\n');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, ['data: {"type":"token"}\n\n']);
  let endedBeforeEnd = false;
  out.once('end', () => { endedBeforeEnd = ended; });
  src.end('data: {"type":"done"}\n\n');
  await new Promise((r) => out.once('close', r));
  assert.equal(endedBeforeEnd, true);
  assert.equal(seen.join(''), 'data: {"type":"token"}\n\ndata: {"type":"done"}\n\n');
});

test('a destroyed wrapper (client gone) destroys the source and never calls atEnd; a failing source fails the wrapper', async () => {
  let ended = false;
  const src = new PassThrough();
  const out = runAtStreamEnd(src, false, () => { ended = true; });
  out.resume();
  src.write('x');
  out.destroy();
  await new Promise((r) => src.once('close', r));
  assert.equal(src.destroyed, true);
  assert.equal(ended, false);

  const src2 = new PassThrough();
  const out2 = runAtStreamEnd(src2, true, () => { ended = true; });
  out2.resume();
  const failed = new Promise<Error>((r) => out2.once('error', r));
  src2.destroy(new Error('upstream broke'));
  assert.match((await failed).message, /upstream broke/);
  assert.equal(ended, false);
});

// --- AdmissionSteps: sealBeforeSend + endTurn ------------------------------------------------

const cfg = gatewayConfig('http://127.0.0.1:9', 'http://127.0.0.1:9/jwks.json');
const settings = { tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, adminEmailAllowlist: [], groupRoleMap: {} };

function setup(stored: Promise<boolean> | null = null) {
  const emitted: Array<{ type: string; status: unknown }> = [];
  // `commit` is recorded as an event of its own: the terminal event must be committed at once.
  // `stored`: what a background-storing (PostgreSQL) outbox answers; null = SQLite, durable at once.
  const events = {
    emit: (_t: string, _p: string, type: string, payload: { status: unknown }) => { emitted.push({ type, status: payload.status }); return 'id'; },
    commitDurable: () => { emitted.push({ type: 'commit', status: undefined }); return stored; },
  } as unknown as TurnEventClient;
  const limiter = (async () => ({ isAllowed: true, key: 'k' })) as unknown as Limiter;
  const registry = new client.Registry();
  const counters = {
    answered: new client.Counter({ name: 'a_total', help: 'a', labelNames: ['status', 'target'], registers: [registry] }),
    rejected: new client.Counter({ name: 'r_total', help: 'r', labelNames: ['code'], registers: [registry] }),
  };
  const steps = new AdmissionSteps({ cfg, settings, events, counters, ipLimiter: limiter, tenantLimiter: limiter });
  return { steps, emitted };
}

function turn(steps: AdmissionSteps, statusCode: number, headers: Record<string, string> = {}) {
  const req = { headers: {}, method: 'POST', raw: { destroyed: false } } as unknown as FastifyRequest;
  const reply = {
    statusCode, raw: { writableFinished: false }, header() { return this; },
    hasHeader: (k: string) => k in headers,
  } as unknown as FastifyReply;
  const st: GatewayState = steps.begin(req, reply);
  const rule = steps.matchRoute('POST', '/v1/chat')!;
  st.rule = rule;
  st.identity = stampIdentity({ iss: 'i', sub: 'u', iat: 1, exp: 2 }, settings);
  steps.startTurn(req, reply, st, '/v1/chat', rule, st.identity);
  return { req, reply, st };
}

test('a buffered answer: the terminal event is emitted in onSend, before the bytes; onResponse does not emit again', () => {
  const { steps, emitted } = setup();
  const t = turn(steps, 200);
  const payload = Buffer.from('{"ok":true}');
  assert.deepEqual(steps.sealBeforeSend(t.req, t.reply, t.st, payload), { payload, stored: null });
  assert.deepEqual(emitted.map((e) => e.type), ['turn_started', 'turn_sealed', 'commit']);
  steps.endTurn(t.req, t.reply, t.st);
  assert.deepEqual(emitted.map((e) => e.type), ['turn_started', 'turn_sealed', 'commit']);

  const t5 = turn(steps, 503);
  steps.sealBeforeSend(t5.req, t5.reply, t5.st, '{"error":"x"}');
  assert.deepEqual(emitted.slice(-2).map((e) => e.type), ['turn_failed', 'commit']);
  assert.equal(emitted.at(-2)!.status, 503);
});

test('a streamed answer: sealed when the stream ends; a stream that breaks off ends failed in onResponse', async () => {
  const { steps, emitted } = setup();
  const t = turn(steps, 200);
  const src = new PassThrough();
  const out = steps.sealBeforeSend(t.req, t.reply, t.st, src).payload as Readable;
  assert.notEqual(out, src);
  assert.deepEqual(emitted.map((e) => e.type), ['turn_started']);
  out.resume();
  src.end('data: done\n\n');
  await new Promise((r) => out.once('end', r));
  assert.deepEqual(emitted.map((e) => e.type), ['turn_started', 'turn_sealed', 'commit']);
  steps.endTurn(t.req, t.reply, t.st);
  assert.equal(emitted.length, 3);

  const b = turn(steps, 200);
  const src2 = new PassThrough();
  const out2 = steps.sealBeforeSend(b.req, b.reply, b.st, src2).payload as Readable;
  out2.resume();
  src2.write('data: partial\n\n');
  out2.destroy();
  steps.endTurn(b.req, b.reply, b.st);
  assert.deepEqual(emitted.slice(3).map((e) => [e.type, e.status]), [['turn_started', undefined], ['turn_failed', 200], ['commit', undefined]]);
});

test('requests without a turn pass through untouched', () => {
  const { steps, emitted } = setup();
  const req = { headers: {}, method: 'GET', raw: { destroyed: false } } as unknown as FastifyRequest;
  const reply = { statusCode: 200, raw: { writableFinished: true }, header() { return this; } } as unknown as FastifyReply;
  const st = steps.begin(req, reply);
  const src = new PassThrough();
  assert.deepEqual(steps.sealBeforeSend(req, reply, st, src), { payload: src, stored: null });
  steps.endTurn(req, reply, st);
  assert.equal(emitted.length, 0);
});

test('PostgreSQL outbox: a buffered answer hands back the pending write; a streamed one holds its end (and last byte) until the write is stored', async () => {
  let store!: (ok: boolean) => void;
  const pending = new Promise<boolean>((r) => { store = r; });
  const { steps, emitted } = setup(pending);
  const t = turn(steps, 200);
  const payload = Buffer.from('{"ok":true}');
  const sealed = steps.sealBeforeSend(t.req, t.reply, t.st, payload);
  assert.equal(sealed.payload, payload);
  assert.equal(sealed.stored, pending, 'the onSend hook waits for this before the first byte');

  const s = turn(steps, 200, { 'content-length': '4' });
  const src = new PassThrough();
  const out = steps.sealBeforeSend(s.req, s.reply, s.st, src).payload as Readable;
  const seen: Buffer[] = [];
  let ended = false;
  out.on('data', (c: Buffer) => seen.push(c));
  out.once('end', () => { ended = true; });
  src.end('done');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(Buffer.concat(seen).toString(), 'don', 'the last byte waits for the outbox write');
  assert.equal(ended, false);
  assert.equal(emitted.filter((e) => e.type === 'commit').length, 2);
  store(true);
  await new Promise((r) => out.once('end', r));
  assert.equal(Buffer.concat(seen).toString(), 'done');
});

test('runAtStreamEnd: a rejected atEnd promise fails the stream instead of ending it', async () => {
  const src = new PassThrough();
  const out = runAtStreamEnd(src, false, () => Promise.reject(new Error('outbox down')));
  out.resume();
  src.end('x');
  const err = await new Promise<Error>((r) => out.once('error', r));
  assert.match(err.message, /outbox down/);
});
