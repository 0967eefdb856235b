/**
 * `/v1/admin/secrets` (issue 19 item 3; spec "Gateway-owned admin"): key versions per kind and
 * their rotation. Node-free (the renderer's Keys tab imports these types).
 *
 * - `GET /v1/admin/secrets` -> 200 `SecretsListing` `{kinds: [{kind, versions, last_rotated_at}]}`
 * - `POST /v1/admin/secrets/{principal|captoken|audit|receipt}/rotate` -> 200 `SecretsRotated`
 *   `{kind, version, rotated_at, kinds}`; an unknown kind -> 404 `key_kind_unknown`; without a
 *   supervisor (a gateway started alone) -> 503 `service_unavailable`.
 * Never a key value: versions carry fingerprints only.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';

/** One key version (see services/shared/key-admin.ts `KeyVersionInfo`). */
export const KeyVersionSchema = Type.Object({
  version: Type.String(),
  fingerprint: Type.String(),
  created_at: Type.Union([Type.String(), Type.Null()]),
  retired_at: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean(),
  source: Type.Union([Type.Literal('rotated'), Type.Literal('environment'), Type.Literal('generated')]),
});
/** One key version. */
export type KeyVersion = Static<typeof KeyVersionSchema>;

/** One kind's versions, newest first. */
export const KeyKindSchema = Type.Object({
  kind: Type.Union([Type.Literal('principal'), Type.Literal('captoken'), Type.Literal('audit'), Type.Literal('receipt')]),
  versions: Type.Array(KeyVersionSchema),
  last_rotated_at: Type.Union([Type.String(), Type.Null()]),
});
/** One kind's listing. */
export type KeyKindEntry = Static<typeof KeyKindSchema>;

/** The answer of `GET /v1/admin/secrets`. */
export const SecretsListingSchema = Type.Object({ kinds: Type.Array(KeyKindSchema) });
/** The listing of every kind. */
export type SecretsListing = Static<typeof SecretsListingSchema>;

/** The answer of a rotation: the kind, its new active version, when, and every kind's listing. */
export const SecretsRotatedSchema = Type.Object({
  kind: KeyKindSchema.properties.kind,
  version: Type.String(),
  rotated_at: Type.String(),
  kinds: Type.Array(KeyKindSchema),
});
/** The answer of a rotation. */
export type SecretsRotated = Static<typeof SecretsRotatedSchema>;
