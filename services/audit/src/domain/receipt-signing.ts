/**
 * Public signatures of sealed envelopes (issue 22 item 2; docs/receipt-format-v2.md).
 *
 * At sealing, the envelope is signed with the active receipt Ed25519 key over the UTF-8 bytes of
 * `JCS({payload, audit_log_id, audit_seq})` and the signature is stored beside the envelope, in the
 * same writer transaction. This is done by decorating the turn service's `EnvelopeStore` port: every
 * `insert` of an envelope row also signs it and inserts its signature row, so the sealing code and
 * the spec's HMACs stay exactly as they are. A manual seal also signs a checkpoint of the new head.
 */
import { sign, type KeyObject } from 'node:crypto';
import { PUBLIC_SIGNATURE_ALG, type PublicSignature } from '../contracts/receipt-format.js';
import type { AsyncPort } from './async-ports.js';
import { aw, drive, type Awaitable, type Steps } from './maybe-async.js';
import type { EnvelopeRow, EnvelopeStore } from './ports.js';

/** A stored envelope signature (`envelope_signatures`). */
export interface EnvelopeSignatureRow { tenant_id: string; turn_id: string; alg: string; kid: string; sig: string }

/** The `envelope_signatures` table. */
export interface EnvelopeSignatureStore {
  /** Insert the signature of a sealed envelope. */
  insert(r: EnvelopeSignatureRow): void;
  /** The signature of a turn's envelope, or undefined (not sealed, or sealed before issue 22). */
  get(tenantId: string, turnId: string): EnvelopeSignatureRow | undefined;
}

/** The active receipt key (the receipt key store's `signer()`). */
export interface ReceiptSigner { signer(): { kid: string; key: KeyObject } }

/**
 * The signed text of an envelope row: `JCS({payload, audit_log_id, audit_seq})`, written out from
 * the stored payload text (already JCS) in JCS key order (`audit_log_id` < `audit_seq` < `payload`).
 * A unit test checks equality with the verifier's `envelopeSigningText`.
 * @throws TypeError when an id or seq is not a safe integer.
 */
export function envelopeSigningTextOf(row: Pick<EnvelopeRow, 'payload' | 'audit_log_id' | 'audit_seq'>): string {
  if (!Number.isSafeInteger(row.audit_log_id) || !Number.isSafeInteger(row.audit_seq)) throw new TypeError('audit_log_id and audit_seq must be safe integers');
  return `{"audit_log_id":${row.audit_log_id},"audit_seq":${row.audit_seq},"payload":${row.payload}}`;
}

/** Ed25519-sign an envelope row with `key`: `{alg: "Ed25519", kid, sig (base64url)}`. */
export function signEnvelopeRow(row: Pick<EnvelopeRow, 'payload' | 'audit_log_id' | 'audit_seq'>, kid: string, key: KeyObject): PublicSignature {
  const sig = sign(null, Buffer.from(envelopeSigningTextOf(row), 'utf8'), key).toString('base64url');
  return { alg: PUBLIC_SIGNATURE_ALG, kid, sig };
}

/** The public signature of a stored row as the proof carries it. */
export function publicSignatureOf(r: EnvelopeSignatureRow | undefined): PublicSignature | null {
  return r ? { alg: PUBLIC_SIGNATURE_ALG, kid: r.kid, sig: r.sig } : null;
}

/**
 * An `EnvelopeStore` whose `insert` also signs the envelope and stores the signature (same
 * transaction: the caller is a writer job). `onManualSeal` runs after a `manual` seal's insert,
 * inside the same job, with the anchor row's seq and chain hash (the new chain head).
 */
export function signingEnvelopeStore(
  inner: AsyncPort<EnvelopeStore>, signer: ReceiptSigner, signatures: AsyncPort<EnvelopeSignatureStore>,
  onManualSeal?: (tenantId: string, seq: number, chainHash: string) => Awaitable<unknown>,
): AsyncPort<EnvelopeStore> {
  function* insertSteps(e: EnvelopeRow): Steps<void> {
    yield* aw(inner.insert(e));
    const { kid, key } = signer.signer();
    const s = signEnvelopeRow(e, kid, key);
    yield* aw(signatures.insert({ tenant_id: e.tenant_id, turn_id: e.turn_id, alg: s.alg, kid: s.kid, sig: s.sig }));
    // The stored payload is JCS: this exact key/value text can only be the real seal_reason.
    if (onManualSeal && e.payload.includes('"seal_reason":"manual"')) yield* aw(onManualSeal(e.tenant_id, e.audit_seq, e.audit_chain_hash));
  }
  return {
    get: (tenantId, turnId) => inner.get(tenantId, turnId),
    // Synchronous over SQLite (inside the writer's transaction), a promise over PostgreSQL.
    insert: (e) => drive(insertSteps(e)),
  };
}
