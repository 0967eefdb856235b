/**
 * RFC 6962 / RFC 9162 Merkle trees (DESIGN.md "Receipt format v1": `merkle_root` is the RFC 6962
 * Merkle Tree Hash over the leaves; node = `H(0x01 || left || right)`, split at the largest power
 * of two below n; no leaves: `H("")`).
 *
 * Besides the root, this file verifies inclusion and consistency proofs (RFC 9162 §2.1.3.2 and
 * §2.1.4.2) with the strict input checks a naive verifier misses: index beyond size, wrong proof
 * length (truncated, padded, garbage), hash sizes, and the size-0 / size-1 / equal-size corners.
 * Sizes and indices are `bigint` so 64-bit tree sizes are exact. Pure and synchronous.
 */
import { type HashProvider, pureHashProvider, fromHex, toHex } from './hash.js';

/** Hash length of SHA-256, bytes. */
export const HASH_SIZE = 32;

/** Why a proof was rejected. */
export type MerkleErrorCode =
  | 'INDEX_OUT_OF_RANGE' | 'BAD_HASH_SIZE' | 'WRONG_PROOF_SIZE' | 'ROOT_MISMATCH' | 'SIZE_ORDER' | 'EMPTY_TREE' | 'INVALID_SUBTREE';

/** A proof rejection with a code callers switch on. */
export class MerkleProofError extends Error {
  readonly code: MerkleErrorCode;
  constructor(code: MerkleErrorCode, message: string) {
    super(message);
    this.name = 'MerkleProofError';
    this.code = code;
  }
}

function concat3(prefix: number, a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + a.length + b.length);
  out[0] = prefix;
  out.set(a, 1);
  out.set(b, 1 + a.length);
  return out;
}

/** Interior node hash `H(0x01 || left || right)`. */
export function hashChildren(left: Uint8Array, right: Uint8Array, hp: HashProvider = pureHashProvider): Uint8Array {
  return hp.sha256(concat3(0x01, left, right));
}

/** Leaf hash of raw leaf data, `H(0x00 || data)`. */
export function hashLeafData(data: Uint8Array, hp: HashProvider = pureHashProvider): Uint8Array {
  return hp.sha256(concat3(0x00, data, new Uint8Array(0)));
}

/** Largest power of two strictly below n (n >= 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 6962 Merkle Tree Hash over already-hashed leaves (bytes). `[]` gives `H("")`. */
export function merkleTreeHash(leaves: readonly Uint8Array[], hp: HashProvider = pureHashProvider): Uint8Array {
  if (leaves.length === 0) return hp.sha256(new Uint8Array(0));
  // Bottom-up over the same shape as the recursive definition: at each level pair neighbours and
  // carry an odd last node up unchanged; this equals splitting at the largest power of two below n.
  let level = leaves.slice();
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(hashChildren(level[i]!, level[i + 1]!, hp));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0]!;
}

/** Recursive reference form of the MTH (used by tests to cross-check the iterative one). */
export function merkleTreeHashRecursive(leaves: readonly Uint8Array[], hp: HashProvider = pureHashProvider): Uint8Array {
  if (leaves.length === 0) return hp.sha256(new Uint8Array(0));
  if (leaves.length === 1) return leaves[0]!;
  const k = splitPoint(leaves.length);
  return hashChildren(merkleTreeHashRecursive(leaves.slice(0, k), hp), merkleTreeHashRecursive(leaves.slice(k), hp), hp);
}

/** `merkle_root` of receipt format v1 from lowercase-hex leaf hashes; throws `TypeError` on bad hex. */
export function merkleRootHex(leafHashesHex: readonly string[], hp: HashProvider = pureHashProvider): string {
  return toHex(merkleTreeHash(leafHashesHex.map((h) => fromHex(h)), hp));
}

function bitLen(x: bigint): number {
  let n = 0;
  while (x > 0n) { x >>= 1n; n++; }
  return n;
}

function popCount(x: bigint): number {
  let n = 0;
  while (x > 0n) { n += Number(x & 1n); x >>= 1n; }
  return n;
}

function trailingZeros(x: bigint): number {
  if (x === 0n) return 64;
  let n = 0;
  while ((x & 1n) === 0n) { x >>= 1n; n++; }
  return n;
}

function decompInclProof(index: bigint, size: bigint): { inner: number; border: number } {
  const inner = bitLen(index ^ (size - 1n));
  const border = popCount(index >> BigInt(inner));
  return { inner, border };
}

function chainInner(seed: Uint8Array, proof: readonly Uint8Array[], index: bigint, hp: HashProvider): Uint8Array {
  proof.forEach((h, i) => {
    seed = ((index >> BigInt(i)) & 1n) === 0n ? hashChildren(seed, h, hp) : hashChildren(h, seed, hp);
  });
  return seed;
}

function chainInnerRight(seed: Uint8Array, proof: readonly Uint8Array[], index: bigint, hp: HashProvider): Uint8Array {
  proof.forEach((h, i) => {
    if (((index >> BigInt(i)) & 1n) === 1n) seed = hashChildren(h, seed, hp);
  });
  return seed;
}

function chainBorderRight(seed: Uint8Array, proof: readonly Uint8Array[], hp: HashProvider): Uint8Array {
  for (const h of proof) seed = hashChildren(h, seed, hp);
  return seed;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

function checkHashes(what: string, hashes: readonly Uint8Array[]): void {
  for (const h of hashes) {
    if (h.length !== HASH_SIZE) throw new MerkleProofError('BAD_HASH_SIZE', `${what} element has ${h.length} bytes, want ${HASH_SIZE}`);
  }
}

/**
 * Root implied by an inclusion proof of `leafHash` at `index` in a tree of `size` leaves.
 * @throws MerkleProofError INDEX_OUT_OF_RANGE, BAD_HASH_SIZE, WRONG_PROOF_SIZE.
 */
export function rootFromInclusionProof(index: bigint, size: bigint, leafHash: Uint8Array, proof: readonly Uint8Array[], hp: HashProvider = pureHashProvider): Uint8Array {
  if (index < 0n || size < 0n || index >= size) throw new MerkleProofError('INDEX_OUT_OF_RANGE', `index ${index} is beyond tree size ${size}`);
  if (leafHash.length !== HASH_SIZE) throw new MerkleProofError('BAD_HASH_SIZE', `leaf hash has ${leafHash.length} bytes`);
  checkHashes('proof', proof);
  const { inner, border } = decompInclProof(index, size);
  if (proof.length !== inner + border) throw new MerkleProofError('WRONG_PROOF_SIZE', `proof has ${proof.length} hashes, want ${inner + border}`);
  const res = chainInner(leafHash, proof.slice(0, inner), index, hp);
  return chainBorderRight(res, proof.slice(inner), hp);
}

/**
 * Verify an RFC 9162 inclusion proof. Returns normally when it holds.
 * @throws MerkleProofError (ROOT_MISMATCH when the proof is well formed but leads elsewhere).
 */
export function verifyInclusion(index: bigint, size: bigint, leafHash: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array, hp: HashProvider = pureHashProvider): void {
  const got = rootFromInclusionProof(index, size, leafHash, proof, hp);
  if (!equalBytes(got, root)) throw new MerkleProofError('ROOT_MISMATCH', 'calculated root differs from the expected root');
}

/**
 * Verify an RFC 9162 consistency proof between a tree of `size1` leaves (root1) and one of `size2`.
 * @throws MerkleProofError SIZE_ORDER, EMPTY_TREE (size1 = 0), WRONG_PROOF_SIZE, BAD_HASH_SIZE, ROOT_MISMATCH.
 */
export function verifyConsistency(size1: bigint, size2: bigint, proof: readonly Uint8Array[], root1: Uint8Array, root2: Uint8Array, hp: HashProvider = pureHashProvider): void {
  if (size1 < 0n || size2 < size1) throw new MerkleProofError('SIZE_ORDER', `size2 (${size2}) < size1 (${size1})`);
  // Consistency with the empty tree proves nothing; treat it as an error rather than a vacuous pass
  // (transparency-dev/merkle behaviour, pinned by its vectors).
  if (size1 === 0n) throw new MerkleProofError('EMPTY_TREE', 'a consistency proof from the empty tree is meaningless');
  if (size1 === size2) {
    if (proof.length > 0) throw new MerkleProofError('WRONG_PROOF_SIZE', 'sizes are equal but the proof is not empty');
    if (!equalBytes(root1, root2)) throw new MerkleProofError('ROOT_MISMATCH', 'sizes are equal but the roots differ');
    return;
  }
  if (proof.length === 0) throw new MerkleProofError('WRONG_PROOF_SIZE', 'empty proof');
  checkHashes('proof', proof);
  const decomposed = decompInclProof(size1 - 1n, size2);
  let inner = decomposed.inner;
  const border = decomposed.border;
  const shift = trailingZeros(size1);
  inner -= shift;
  let seed = proof[0]!;
  let start = 1;
  if (size1 === 1n << BigInt(shift)) { seed = root1; start = 0; }
  if (proof.length !== start + inner + border) throw new MerkleProofError('WRONG_PROOF_SIZE', `proof has ${proof.length} hashes, want ${start + inner + border}`);
  const rest = proof.slice(start);
  const mask = (size1 - 1n) >> BigInt(shift);
  let h1 = chainInnerRight(seed, rest.slice(0, inner), mask, hp);
  h1 = chainBorderRight(h1, rest.slice(inner), hp);
  if (!equalBytes(h1, root1)) throw new MerkleProofError('ROOT_MISMATCH', 'proof does not lead to root1');
  let h2 = chainInner(seed, rest.slice(0, inner), mask, hp);
  h2 = chainBorderRight(h2, rest.slice(inner), hp);
  if (!equalBytes(h2, root2)) throw new MerkleProofError('ROOT_MISMATCH', 'proof does not lead to root2');
}

/**
 * True when [start, end) is a valid subtree: non-empty and `start` a multiple of the smallest power
 * of two that is >= end - start (the subtrees of draft Merkle Tree Certificates).
 */
export function isValidSubtree(start: bigint, end: bigint): boolean {
  if (start < 0n || end <= start) return false;
  const n = end - start;
  let p = 1n;
  while (p < n) p <<= 1n;
  return start % p === 0n;
}

/**
 * Verify inclusion of `leafHash` at absolute `index` in the subtree [start, end) whose hash is `root`.
 * @throws MerkleProofError INVALID_SUBTREE, or as `verifyInclusion`.
 */
export function verifySubtreeInclusion(index: bigint, start: bigint, end: bigint, leafHash: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array, hp: HashProvider = pureHashProvider): void {
  if (!isValidSubtree(start, end)) throw new MerkleProofError('INVALID_SUBTREE', `[${start}, ${end}) is not a valid subtree`);
  if (index < start || index >= end) throw new MerkleProofError('INDEX_OUT_OF_RANGE', `index ${index} outside [${start}, ${end})`);
  verifyInclusion(index - start, end - start, leafHash, proof, root, hp);
}
