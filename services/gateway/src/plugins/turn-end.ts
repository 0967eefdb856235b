/**
 * Emitting a turn's terminal event before its answer completes (issue 11 item 7): for a buffered
 * answer the gateway emits in `onSend`, before any byte is written; a streamed answer is passed
 * through `runAtStreamEnd`, which runs the emit when the body stream ends and only then lets the
 * response end. A client that received a complete answer therefore implies the event was on disk
 * (on PostgreSQL, stored: the end waits for the outbox's background write).
 */
import { Transform, pipeline, type Readable } from 'node:stream';

/** Whether a fastify payload is a stream (piped to the response) rather than a string or buffer. */
export function isStreamPayload(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as { pipe?: unknown }).pipe === 'function';
}

/**
 * Pass `source` through a stream that calls `atEnd` once `source` ended and before it ends itself.
 * A chunked response is complete only at its terminating chunk, written when the stream ends, so
 * passing bytes through as they come is enough (an SSE event is not delayed). A response with
 * Content-Length is complete at its last byte: with `holdLastByte` that byte is kept back until
 * `atEnd` returned. If `source` fails or the wrapper is destroyed (the client went away), `atEnd`
 * is not called and the other side is destroyed too.
 * @param atEnd an exception fails the stream; a returned promise holds the end (and the held byte)
 *   until it settles (the PostgreSQL outbox storing in the background), a rejection fails the stream.
 * @returns the stream to send instead of `source`.
 */
export function runAtStreamEnd(source: Readable, holdLastByte: boolean, atEnd: () => unknown): Readable {
  let held: Buffer | null = null;
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb): void {
      if (!holdLastByte || chunk.length === 0) { cb(null, chunk); return; }
      if (held) this.push(held);
      held = chunk.subarray(chunk.length - 1);
      cb(null, chunk.length > 1 ? chunk.subarray(0, chunk.length - 1) : undefined);
    },
    flush(cb): void {
      let waiting: unknown;
      try {
        waiting = atEnd();
      } catch (err) {
        cb(err as Error);
        return;
      }
      if (waiting instanceof Promise) void waiting.then(() => cb(null, held ?? undefined), (err: Error) => cb(err));
      else cb(null, held ?? undefined);
    },
  });
  // Errors and early destruction travel both ways; the response sees them through `out`.
  pipeline(source, out, () => { /* reported through `out` */ });
  return out;
}
