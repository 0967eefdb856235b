/**
 * A recording upstream for gateway tests: answers every request with what it received
 * (method, path, headers, body) and records turn-event batches posted to `/v1/turns/events`; the
 * gateway's revocation-list poll gets an empty list and is not recorded.
 * It stands in for the owning services so the gateway can be tested on its own.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { TurnEvent } from '../../services/shared/events/turn-events.js';

/** What the upstream saw of one request. */
export interface SeenRequest { method: string; url: string; headers: IncomingHttpHeaders; body: string }

/** A running recording upstream. */
export interface RecordingUpstream {
  url: string;
  port: number;
  seen: SeenRequest[];
  events: TurnEvent[];
  /** When > 0, answer this many turn-event posts with 503 (audit restarting). */
  failEvents: number;
  close(): Promise<void>;
}

/** Start a recording upstream on port 0. */
export async function startUpstream(port = 0): Promise<RecordingUpstream> {
  const state: Omit<RecordingUpstream, 'url' | 'port' | 'close'> = { seen: [], events: [], failEvents: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/v1/turns/events') {
        if (state.failEvents > 0) { state.failEvents--; res.writeHead(503); res.end(); return; }
        const parsed = JSON.parse(body) as { events: TurnEvent[] };
        state.events.push(...parsed.events);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ accepted: parsed.events.length, duplicates: 0, rejected: [] }));
        return;
      }
      if (req.url?.startsWith('/v1/internal/auth/revocations')) {
        // The gateway's revocation-list poll (issue 11 item 9): an empty list, not recorded.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: 'http://127.0.0.1:8080/auth', latest: 0, keep_seconds: 660, items: [] }));
        return;
      }
      state.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify({ ok: true, url: req.url, turn: req.headers['x-svc-turn-id'] ?? null }));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as { port: number }).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  }) as RecordingUpstream;
}
