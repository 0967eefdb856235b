/**
 * The sign-in log's admin route (issue 15 item 5): `GET /v1/admin/auth/sign-ins?limit&cursor`
 * (role `admin`) -> `SignInPage`, newest first, with the count per method over the last
 * `SIGN_IN_COUNT_DAYS` days for the admin's chart. Node-free.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull } from '../../../shared/kit/schema.js';

/** Path of the admin route. */
export const SIGN_INS_PATH = '/v1/admin/auth/sign-ins';
/** Page size bounds. */
export const SIGN_INS_PAGE = { default: 50, max: 200 } as const;
/** Days counted in `counts`. */
export const SIGN_IN_COUNT_DAYS = 30;
/** Days a row is kept. */
export const SIGN_IN_KEEP_DAYS = 90;

/** Query of `GET /v1/admin/auth/sign-ins`. */
export const SignInsQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SIGN_INS_PAGE.max })),
  cursor: Type.Optional(Type.String({ maxLength: 128 })),
}, { additionalProperties: false });
export type SignInsQuery = Static<typeof SignInsQuerySchema>;

/** One sign-in. */
export const SignInViewSchema = Type.Object({
  id: Type.Integer(),
  /** RFC 3339 UTC. */
  at: Type.String(),
  user_id: Type.String(),
  email: OrNull(Type.String()),
  /** `password` | `directory` | `upstream_oidc` | `mobile` | `installer_handoff` (the first factor; `client_id` tells the channel). */
  method: Type.String(),
  /** `push` | `totp` | `recovery_code` | `enroll`, or null when no second factor ran. */
  second_factor: OrNull(Type.String()),
  issuer: OrNull(Type.String()),
  client_id: OrNull(Type.String()),
  client_ip: OrNull(Type.String()),
});
export type SignInView = Static<typeof SignInViewSchema>;

/** A page of sign-ins with the per-method counts. */
export const SignInPageSchema = Type.Object({
  items: Type.Array(SignInViewSchema),
  next_cursor: Type.Optional(Type.String()),
  /** Sign-ins per method since `counts_since`, largest first. */
  counts: Type.Array(Type.Object({ method: Type.String(), count: Type.Integer() })),
  /** RFC 3339 UTC: start of the counted period (`SIGN_IN_COUNT_DAYS` ago). */
  counts_since: Type.String(),
});
export type SignInPage = Static<typeof SignInPageSchema>;
