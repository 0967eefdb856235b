/**
 * What a turn event says about a captured body (DESIGN.md "Receipt format"): its kind, sha256 and
 * size, so the sealed receipt commits to the bytes audit stores as the artifact.
 */
import { createHash } from 'node:crypto';

/** `{kind, sha256, bytes}` of a captured body (sha256 lowercase hex of its UTF-8 bytes). */
export function artifactRef(kind: string, body: string): { kind: string; sha256: string; bytes: number } {
  return { kind, sha256: createHash('sha256').update(body, 'utf8').digest('hex'), bytes: Buffer.byteLength(body) };
}
