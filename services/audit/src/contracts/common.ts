/**
 * Schema helpers of the audit contracts (TypeBox; DESIGN.md "Inside a service": `contracts.ts`).
 * Node-free. Nullable and enum schemas use JSON Schema type arrays and `enum` (not `anyOf`), so
 * request validation answers the same messages as before and response serialisation stays fast.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Nullable, StringEnum } from '../../../shared/kit/schema.js';

export { Nullable, StringEnum };

/** JSON value (what JCS accepts). */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Any JSON value (open content: detail, payload, agent_chain). Serialised as is. */
export const JsonSchema = Type.Unsafe<Json>({});

/** A bounded string that may be null (`{type: ["string", "null"], maxLength}`). */
export const NullableString = (maxLength?: number) => Nullable(maxLength === undefined ? Type.String() : Type.String({ maxLength }));

/** `:turn_id` path parameter (1-128 characters). */
export const TurnParamsSchema = Type.Object({ turn_id: Type.String({ minLength: 1, maxLength: 128 }) });
/** `:turn_id` path parameter. */
export type TurnParams = Static<typeof TurnParamsSchema>;
