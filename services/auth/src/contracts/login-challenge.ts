/**
 * The internal login-challenge routes the gateway calls (issue 14 item 3; spec "Mobile-push second
 * factor" steps 2-5, "States and transitions" login rows; /work/2fa-brief.md "Internal routes").
 * Service principal `service:gateway` only; any other caller is 403 `forbidden`.
 *
 * - `GET /login-challenge/required?user_id=` -> `LoginChallengeRequired`
 * - `POST /login-challenge` `LoginChallengeCreate` -> 201 `LoginChallengeCreated`; 429 `challenge_throttled`
 * - `POST /login-challenge/verify` `LoginChallengeVerify` -> `LoginChallengeVerdict`; 401 `code_invalid`,
 *   403 `challenge_denied`, 409 `challenge_used`, 410 `challenge_expired`
 *
 * Node-free (contracts rule).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { StringEnum } from '../../../shared/kit/schema.js';

/** Path of `GET /login-challenge/required`. */
export const LOGIN_CHALLENGE_REQUIRED_PATH = '/login-challenge/required';
/** Path of `POST /login-challenge`. */
export const LOGIN_CHALLENGE_PATH = '/login-challenge';
/** Path of `POST /login-challenge/verify`. */
export const LOGIN_CHALLENGE_VERIFY_PATH = '/login-challenge/verify';

/** The only caller of the internal routes. */
export const LOGIN_CHALLENGE_CALLER = 'service:gateway';

/**
 * What may answer a challenge: `push` (the paired phone approves with number matching), `totp`
 * (the phone's offline RFC 6238 code), `recovery_code` (one of the ten single-use codes), `enroll`
 * (an enforced user without a device pairs first with the challenge's `enrollment_url`).
 */
export const CHALLENGE_METHODS = ['push', 'totp', 'recovery_code', 'enroll'] as const;
/** One of `CHALLENGE_METHODS`. */
export type ChallengeMethod = (typeof CHALLENGE_METHODS)[number];

/** A ULID (Crockford base32, 26 characters). */
export const ULID_PATTERN = '^[0-9A-HJKMNP-TV-Z]{26}$';

/** A user id in queries and bodies (local ULIDs, or ids of other issuers). */
const UserId = Type.String({ minLength: 1, maxLength: 256 });

/** `GET /login-challenge/required` query. */
export const LoginChallengeRequiredQuerySchema = Type.Object({ user_id: UserId }, { additionalProperties: false });

/**
 * `GET /login-challenge/required` answer. `enrolled`: the user has a paired device; `enforced`: the
 * second-factor policy is on and the user is not an admin (admins are never force-enrolled);
 * `required` = enrolled || enforced; `methods`: what a challenge created now would offer.
 */
export const LoginChallengeRequiredSchema = Type.Object({
  required: Type.Boolean(),
  enrolled: Type.Boolean(),
  enforced: Type.Boolean(),
  methods: Type.Array(StringEnum(CHALLENGE_METHODS)),
});
/** `GET /login-challenge/required`. */
export type LoginChallengeRequired = Static<typeof LoginChallengeRequiredSchema>;

/** `POST /login-challenge` body: whose login, and from where (shown on the phone). */
export const LoginChallengeCreateSchema = Type.Object({
  user_id: UserId,
  client_ip: Type.String({ maxLength: 64 }),
  user_agent: Type.String({ maxLength: 512 }),
}, { additionalProperties: false });
/** `POST /login-challenge` body. */
export type LoginChallengeCreate = Static<typeof LoginChallengeCreateSchema>;

/**
 * `POST /login-challenge` answer (201). `number_match` (10-99) is what the browser shows and the
 * phone's user picks among three; `expires_at` RFC 3339; `enrollment_url` only for `["enroll", ...]`.
 */
export const LoginChallengeCreatedSchema = Type.Object({
  challenge_id: Type.String(),
  methods: Type.Array(StringEnum(CHALLENGE_METHODS)),
  number_match: Type.Integer({ minimum: 10, maximum: 99 }),
  expires_at: Type.String(),
  enrollment_url: Type.Optional(Type.String()),
});
/** `POST /login-challenge` answer. */
export type LoginChallengeCreated = Static<typeof LoginChallengeCreatedSchema>;

/** `POST /login-challenge/verify` body; `code` is a 6-digit TOTP code or a recovery code (`xxxx-xxxx-xxxx`). */
export const LoginChallengeVerifySchema = Type.Object({
  challenge_id: Type.String({ minLength: 1, maxLength: 64 }),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
}, { additionalProperties: false });
/** `POST /login-challenge/verify` body. */
export type LoginChallengeVerify = Static<typeof LoginChallengeVerifySchema>;

/**
 * `POST /login-challenge/verify` answer: `{status: "pending"}` while unanswered, or
 * `{status: "approved", user_id}` exactly once (the challenge becomes `released`).
 */
export const LoginChallengeVerdictSchema = Type.Union([
  Type.Object({ status: Type.Literal('pending') }),
  Type.Object({ status: Type.Literal('approved'), user_id: Type.String() }),
]);
/** `POST /login-challenge/verify` answer. */
export type LoginChallengeVerdict = Static<typeof LoginChallengeVerdictSchema>;
