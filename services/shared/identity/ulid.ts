/**
 * ULID generation (monotonic, via the `ulid` package) with a buffered CSPRNG.
 *
 * `ulid`'s default PRNG draws one `crypto.randomBytes(1)` per character; on the gateway's hot path
 * (a turn id and two event ids per request) that showed up as the top self-time entry. This source
 * draws 4 KiB of randomness at a time from the same CSPRNG and hands it out byte by byte.
 */
import { randomFillSync } from 'node:crypto';
import { monotonicFactory, type ULIDFactory } from 'ulid';

const pool = Buffer.alloc(4096);
let offset = pool.length;

/** A PRNG in [0, 1) backed by buffered `crypto.randomFillSync`. */
export function bufferedPrng(): number {
  if (offset >= pool.length) { randomFillSync(pool); offset = 0; }
  return pool[offset++]! / 256;
}

/** A monotonic ULID factory using the buffered PRNG. */
export function ulidFactory(): ULIDFactory {
  return monotonicFactory(bufferedPrng);
}
