/**
 * User and tenant secret contracts (spec "Agent runtime surfaces": `/v1/user/secrets`, admin
 * `/v1/admin/tenant-secrets/*`; issue 13 item 3). A secret is a named value (an API key, a token)
 * that MCP servers and connectors reference by name; the value is encrypted at rest and never
 * returned after it was written: answers carry the name, description and times only.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, Timestamp } from './atoms.js';

/** Pattern of a secret name. */
export const SECRET_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';
/** Largest secret value, bytes of UTF-8 (beyond: 413 `payload_too_large`). */
export const SECRET_VALUE_MAX_BYTES = 16 * 1024;
/** Longest description, characters. */
export const SECRET_DESCRIPTION_MAX = 500;

/** A secret's name. */
export const SecretName = Type.String({ pattern: SECRET_NAME_PATTERN, description: 'letters, digits, _ . - (1-64)' });

/** `{name}` path parameter (checked in the domain, so a bad name answers `invalid_request` naming `params.name`). */
export const SecretParams = Type.Object({ name: Type.String({ maxLength: 256 }) });

/**
 * `PUT /v1/user/secrets/{name}` (and the tenant twin) body: the value (at most 16 KiB of UTF-8) and
 * an optional description; a description left out keeps the stored one, `null` clears it.
 */
export const SecretPutSchema = Type.Object({
  value: Type.String({ minLength: 1 }),
  description: Type.Optional(OrNull(Type.String({ maxLength: SECRET_DESCRIPTION_MAX }))),
}, { additionalProperties: false });
/** A secret write. */
export type SecretPut = Static<typeof SecretPutSchema>;

/** A secret as lists show it: never its value. */
export const SecretViewSchema = Type.Object({
  name: Type.String(),
  description: OrNull(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** A secret without its value. */
export type SecretView = Static<typeof SecretViewSchema>;

/** `GET /v1/user/secrets` (and `GET /v1/admin/tenant-secrets`) answer, by name. */
export const SecretListSchema = Type.Object({ items: Type.Array(SecretViewSchema) });
/** The secret list. */
export type SecretList = Static<typeof SecretListSchema>;

/** Where the data key of secrets is kept (like the inference router's provider keys). */
export type SecretKeyStoreKind = 'os_keychain' | 'encrypted_file';
