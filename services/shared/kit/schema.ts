/**
 * Schema atoms every service's `contracts.ts` builds from (TypeBox; DESIGN.md "Inside a service").
 * Node-free, so contracts that import them stay importable by the renderer. Each produces exactly
 * the JSON Schema the routes validated with before TypeBox, so validation answers (status, message,
 * field path) do not change.
 */
import { Type, type Static, type TSchema, type TUnsafe } from './typebox.js';

/** A string that is one of `values`: `{type: "string", enum, ...opts}` (TypeBox's own `Enum` omits `type`, which changes coercion). */
export function StringEnum<const V extends readonly string[]>(values: V, opts: { description?: string } = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...opts });
}

/** `schema` or null as one JSON Schema type array: `{...schema, type: [T, "null"]}` (for single-`type` schemas). */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const s = schema as unknown as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [s.type, 'null'] });
}

/** `schema` or null as `anyOf` (for schemas without a single `type`, e.g. objects with their own keywords). */
export function OrNull<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
