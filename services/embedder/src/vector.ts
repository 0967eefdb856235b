/** Small vector helpers shared by memory and knowledge (vectors are L2-normalised Float32Arrays). */

/** Dot product (cosine for normalised vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/** Scale to unit length in place; zero vectors stay zero. */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** The bytes of a Float32Array as a Buffer (for BLOB columns and sqlite-vec). */
export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A Float32Array over a BLOB (copied, so the result is aligned). */
export function fromBlob(b: Buffer | Uint8Array): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}

/** Sign bits of `v` (bit i set when v[i] > 0), little-endian within each byte, as sqlite-vec's bit[] expects. */
export function signBits(v: Float32Array): Buffer {
  const out = Buffer.alloc(Math.ceil(v.length / 8));
  for (let i = 0; i < v.length; i++) if (v[i]! > 0) out[i >> 3]! |= 1 << (i & 7);
  return out;
}
