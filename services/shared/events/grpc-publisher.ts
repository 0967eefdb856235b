/**
 * Turn events to audit over a gRPC stream (issue 20 item 3; spec "Turn events (gRPC publish to
 * audit)"): `svc.v1.Audit/PublishTurnEvents`, a bidirectional stream on which each batch the
 * outbox would POST to `/v1/turns/events` travels as a `TurnEventBatch` and comes back answered, in
 * order, with what that route answers (`TurnEventAnswer`: `http_status`, result or error body).
 *
 * `send` gives `TurnEventClient` the same `{statusCode, text}` an HTTP POST gives, so batching,
 * retry, dropping of unacceptable batches and idempotency (audit counts a re-delivered event as a
 * duplicate) stay the client's. The stream opens lazily with the service token in `authorization`
 * and a signed service principal in `svc-principal` (both verified at open, as the HTTP route's
 * headers are), and is reopened after `STREAM_MAX_AGE_MS` so the stamp never expires under it. Any
 * failure rejects the pending batch; the caller then sends it over HTTP (re-delivery is harmless).
 */
import * as grpc from '@grpc/grpc-js';
import { signStamp, servicePrincipal } from '../identity/principal.js';
import { installedServiceTokens } from '../identity/service-token-dispatch.js';
import { svcV1 } from '../grpc/proto.js';
import { fromMessage, toMessage } from '../grpc/schema-codec.js';
import { MD_PRINCIPAL } from '../grpc/wire.js';
import { INGEST_RESULT_SCHEMA, TURN_EVENT_ANSWER_SCHEMA, TURN_EVENT_BATCH_SCHEMA } from './turn-event-schema.js';

/** A stream is replaced after this long (the signed principal of its open lives 300 s). */
export const STREAM_MAX_AGE_MS = 120_000;
/** How long one batch may wait for its answer, ms (the HTTP POST's timeout). */
const ANSWER_TIMEOUT_MS = 10_000;
const ANSWER = TURN_EVENT_ANSWER_SCHEMA(INGEST_RESULT_SCHEMA);

type Duplex = grpc.ClientDuplexStream<Record<string, unknown>, Record<string, unknown>>;

/** What audit answered one batch, as the HTTP POST would have. */
export interface BatchAnswer { statusCode: number; text: string }

/** One service's publishing stream to audit. */
export class TurnEventStream {
  private readonly client: grpc.Client;
  private stream: Duplex | null = null;
  private openedAt = 0;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (a: BatchAnswer) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  /** @param address audit's gRPC `host:port`. */
  constructor(address: string, private readonly o: { service: string; tenantId: string; principalKeys: readonly string[] }) {
    const Audit = svcV1()['Audit']!;
    this.client = new Audit(address, grpc.credentials.createInsecure(), {
      'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 2000, 'grpc.enable_channelz': 0,
    });
  }

  private async open(): Promise<Duplex> {
    if (this.stream && Date.now() - this.openedAt < STREAM_MAX_AGE_MS) return this.stream;
    if (this.stream) { this.stream.end(); this.stream = null; }
    const md = new grpc.Metadata();
    // The service token as the HTTP hop's interceptor gets it (cached, or fetched once).
    const tokens = installedServiceTokens();
    const token = tokens ? tokens.peek() ?? await tokens.get().catch(() => null) : null;
    if (this.stream) return this.stream;
    if (token) md.set('authorization', `Bearer ${token}`);
    md.set(MD_PRINCIPAL, signStamp(servicePrincipal(this.o.service, this.o.tenantId), this.o.principalKeys));
    const def = svcV1()['Audit']!.service['PublishTurnEvents']!;
    const s = this.client.makeBidiStreamRequest('/svc.v1.Audit/PublishTurnEvents',
      def.requestSerialize as (v: Record<string, unknown>) => Buffer, def.responseDeserialize as (b: Buffer) => Record<string, unknown>, md) as Duplex;
    s.on('data', (msg: Record<string, unknown>) => {
      const a = fromMessage(ANSWER, msg) as { batch_seq: number; http_status: number; result?: unknown; error_body?: string | null };
      const p = this.pending.get(a.batch_seq);
      if (!p) return;
      this.pending.delete(a.batch_seq);
      clearTimeout(p.timer);
      p.resolve({ statusCode: a.http_status, text: a.result !== undefined ? JSON.stringify(a.result) : a.error_body ?? '' });
    });
    const fail = (err: Error): void => {
      if (this.stream === s) this.stream = null;
      for (const [k, p] of this.pending) { clearTimeout(p.timer); p.reject(err); this.pending.delete(k); }
    };
    s.on('error', (err: Error) => fail(err));
    s.on('end', () => fail(new Error('turn-event stream ended')));
    this.stream = s;
    this.openedAt = Date.now();
    return s;
  }

  /**
   * Send one batch (the events `POST /v1/turns/events` would carry) and wait for its answer.
   * @throws Error when the stream failed or no answer came in time (send it over HTTP instead).
   */
  async send(events: readonly unknown[]): Promise<BatchAnswer> {
    const s = await this.open();
    const batchSeq = ++this.seq;
    return new Promise<BatchAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(batchSeq);
        reject(new Error('no answer on the turn-event stream'));
        // A stream that does not answer is replaced.
        if (this.stream === s) { this.stream = null; s.cancel(); }
      }, ANSWER_TIMEOUT_MS);
      timer.unref();
      this.pending.set(batchSeq, { resolve, reject, timer });
      s.write(toMessage(TURN_EVENT_BATCH_SCHEMA, { batch_seq: batchSeq, events }));
    });
  }

  /** End the stream and close the channel. */
  close(): void {
    this.stream?.end();
    this.stream = null;
    this.client.close();
  }
}
