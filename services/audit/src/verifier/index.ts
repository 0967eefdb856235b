/**
 * The pure receipt verifier (DESIGN.md "Receipt format v1"; docs/receipts.md for v1.1; STYLE.md
 * sigstore-js section).
 *
 * No file system, database or network: callers parse files themselves and inject keys (and, when
 * they have one, a faster `HashProvider`). Usable from the service, `scripts/svc-verify` and the
 * renderer alike.
 *
 * @example
 * const report = verifyReceiptJson({ bundle: JSON.parse(text) }, { keys: { v1: key } });
 * if (!report.ok) for (const c of report.checks) if (!c.ok) console.log(c.id, c.detail);
 */
export * from './types.js';
export * from './format.js';
export { type HashProvider, pureHashProvider, sha256Pure, hmacSha256Pure, toHex, fromHex, utf8 } from './hash.js';
export {
  merkleTreeHash, merkleRootHex, hashChildren, hashLeafData, rootFromInclusionProof, verifyInclusion, verifyConsistency,
  verifySubtreeInclusion, isValidSubtree, MerkleProofError, type MerkleErrorCode,
} from './merkle.js';
export { parseBundle, parseReceiptDetail, parseProofExport, parseProofRow, parseRedactedRow, isBundleShape } from './parse.js';
export { verifyBundle, verifyReceiptJson, normaliseInput, refusedReport, suffixCoverage, PIPELINE, type VerifyOptions } from './verify.js';
export {
  VERIFIER_LIMITS, verifierLimits, jsonNestingDepth, jsonValueDepth, utf8Length, checkJsonText, checkJsonValue, type VerifierLimits,
} from './limits.js';
export { CHECK_TITLES, notChecked, type Check, type CheckInput } from './check-kit.js';
export { checkStructure, checkBinding, checkLeaves, checkMerkleRoot, checkEnvelopeHmac } from './checks-envelope.js';
export { checkAnchor, checkSuffixHmac, checkSuffixContinuity, redactedTail } from './checks-chain.js';
export {
  NoteError, base64Encode, base64Decode, base64UrlEncode, isValidKeyName, noteKeyHash, noteVerifierKey, checkNoteText, signatureLine,
  formatNote, parseNote, formatCheckpointText, parseCheckpointText, checkpointExtension, NOTE_SIG_PREFIX,
  type Note, type NoteSignature, type Checkpoint,
} from './note.js';
export {
  jwkThumbprint, parsePublicKeys, envelopeSigningText, verifyBundlePublic, verifyBundlePublicSync, verifyReceiptJsonPublic, refusedPublicReport,
  type Ed25519Verify, type PinnedKey, type PublicKeyRing, type PublicVerifyOptions, type PublicVerificationReport, type CheckpointSummary,
} from './public-key.js';
