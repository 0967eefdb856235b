/**
 * The published receipt signing keys (issue 22 item 1; issue 19 item 3 `receipt`):
 * `GET /v1/receipts/keys` (no bearer) -> 200 `ReceiptKeySet` `{keys: [{kty: "OKP", crv: "Ed25519",
 * x, kid, created_at, retired_at?}]}`, newest first; `retired_at` is absent on the active key.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';

/** One published Ed25519 public key (a JWK, RFC 8037) with its dates. */
export const ReceiptPublicKeySchema = Type.Object({
  kty: Type.Literal('OKP'),
  crv: Type.Literal('Ed25519'),
  /** The raw 32-byte public key, base64url. */
  x: Type.String(),
  /** RFC 7638 JWK thumbprint (SHA-256, base64url). */
  kid: Type.String(),
  created_at: Type.String(),
  retired_at: Type.Optional(Type.String()),
});
/** One published receipt key. */
export type ReceiptPublicKey = Static<typeof ReceiptPublicKeySchema>;

/** The answer of `GET /v1/receipts/keys`. */
export const ReceiptKeySetSchema = Type.Object({ keys: Type.Array(ReceiptPublicKeySchema) });
/** The published receipt key set. */
export type ReceiptKeySet = Static<typeof ReceiptKeySetSchema>;

/**
 * Params of `GET /v1/receipts/checkpoints/:seq` (issue 22 item 3): the chain seq (tree size) of a
 * signed checkpoint. `GET /v1/receipts/checkpoints/latest` and this route answer the C2SP signed
 * note as `text/plain; charset=utf-8` (no bearer: a checkpoint names only the origin, a seq and a
 * chain hash); 404 `checkpoint_not_found` when there is none.
 */
export const CheckpointParamsSchema = Type.Object({ seq: Type.Integer({ minimum: 1 }) });
/** Params of `GET /v1/receipts/checkpoints/:seq`. */
export type CheckpointParams = Static<typeof CheckpointParamsSchema>;
