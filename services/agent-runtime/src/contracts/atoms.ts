/**
 * Small schema atoms the runtime's contracts are built from (ids, names, enums, nullables). The
 * JSON they produce is exactly the JSON schema the routes validated with before TypeBox, so
 * validation answers (status, message, field path) stay the same.
 */
import { Type, type Static, type TObject, type TUnsafe } from '../../../shared/kit/typebox.js';
import { OrNull, StringEnum } from '../../../shared/kit/schema.js';

export { OrNull, StringEnum };

/** Pattern of ids and agent ids in paths and bodies. */
export const ID_PATTERN = '^[A-Za-z0-9_.:-]+$';

/** A ULID-like or opaque id in a path or body. */
export const Id = Type.String({ minLength: 1, maxLength: 128, pattern: ID_PATTERN });

/** An agent id. */
export const AgentId = Type.String({ minLength: 1, maxLength: 128, pattern: ID_PATTERN });

/** A title or folder name. */
export const Name = Type.String({ minLength: 1, maxLength: 200 });

/** `{id}` path parameter. */
export const IdParams = Type.Object({ id: Id });

/** An ISO 8601 timestamp (UTC, milliseconds). */
export const Timestamp = Type.String({ description: 'ISO 8601 time, UTC' });

/** Answer of a route that sends no body (204). */
export const NoContent = Type.Null({ description: 'no body' });

/**
 * `schema` as an answer is serialised: fast-json-stringify writes required properties first, which
 * would move an optional property declared before them (a receipt's `id`, a rule's `tenant_id`).
 * Without `required` it writes the properties in their declared order, the order the domain builds
 * the object in, as `JSON.stringify` did. The type stays `schema`'s.
 */
export function InOrder<S extends TObject>(schema: S): TUnsafe<Static<S>> {
  const { required: _required, ...rest } = schema as unknown as Record<string, unknown>;
  return Type.Unsafe<Static<S>>(rest);
}
