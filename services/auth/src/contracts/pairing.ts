/**
 * The phone's routes under `/dirauth/pair/*` (public at the gateway: no bearer; the enrollment token
 * or a device-key proof is the credential) and the signed objects they carry (issue 14 items 1, 2,
 * 3, 5; spec "Mobile-push second factor", "States and transitions"; /work/2fa-brief.md "Crypto
 * objects", "Phone routes"; docs/mobile-2fa.md).
 *
 * - `POST /dirauth/pair/enroll` `EnrollBody` -> 201 `EnrollResult`; 401 `enrollment_token_invalid`,
 *   410 `enrollment_expired`, 409 `enrollment_used`, 401 `device_proof_invalid`
 * - `POST /dirauth/pair/refresh` `{refresh_token}` -> `TokenResponse`; 401 `refresh_token_invalid`,
 *   `refresh_token_reused` (the device is revoked), `device_revoked`
 * - `GET /dirauth/pair/challenges` (`X-Device-Proof` or `?proof=`; `?wait=1..25` long poll;
 *   `Accept: text/event-stream` SSE) -> `ChallengeList`; 401 `device_proof_invalid`, `device_proof_replayed`, `device_revoked`
 * - `POST /dirauth/pair/challenges/{challenge_id}/answer` `{answer}` -> `AnswerResult`; 401
 *   `device_proof_invalid`, `device_revoked`, `device_proof_replayed`; 404 `challenge_not_found`;
 *   410 `challenge_expired`; 409 `challenge_answered`
 *
 * All JWS are compact, ES256 over P-256. Node-free (contracts rule).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { StringEnum } from '../../../shared/kit/schema.js';

/** Path prefix of the phone's routes (kept from the spec's dirauth era; served by the auth service). */
export const PAIR_PREFIX = '/dirauth/pair';
/** `POST` enrollment. */
export const PAIR_ENROLL_PATH = `${PAIR_PREFIX}/enroll`;
/** `POST` mobile refresh. */
export const PAIR_REFRESH_PATH = `${PAIR_PREFIX}/refresh`;
/** `GET` the device channel (and the `htu` of its device proofs). */
export const PAIR_CHALLENGES_PATH = `${PAIR_PREFIX}/challenges`;

/** `typ` of the enrollment token (signed by the auth key). */
export const ENROLLMENT_TOKEN_TYP = 'svc-enroll+jwt';
/** `aud` of the enrollment token. */
export const ENROLLMENT_AUDIENCE = 'svc-device-enrollment';
/** `typ` of the enrollment proof (signed by the new device key, public JWK in the header). */
export const ENROLLMENT_PROOF_TYP = 'svc-device-enroll+jwt';
/** `typ` of a device proof (DPoP-like, RFC 9449). */
export const DEVICE_PROOF_TYP = 'svc-device+jwt';
/** `typ` of a signed answer. */
export const ANSWER_TYP = 'svc-device-answer+jwt';
/** `aud` of a mobile refresh token. */
export const DEVICE_REFRESH_AUDIENCE = 'svc-device-refresh';

/** Enrollment token lifetime, seconds (the issue: "about 2 minutes"). */
export const ENROLLMENT_TTL_SECONDS = 120;
/** Longest lifetime (exp - iat) of an enrollment proof, device proof or answer, seconds. */
export const PROOF_MAX_LIFETIME_SECONDS = 120;
/** How far in the future a proof's `iat` may be (clock skew), seconds. */
export const PROOF_IAT_SKEW_SECONDS = 30;
/** Shortest `jti` of a device proof or answer, characters. */
export const PROOF_JTI_MIN = 16;
/** Mobile refresh token lifetime, seconds (30 days). */
export const MOBILE_REFRESH_TTL_SECONDS = 30 * 86_400;
/** Longest long-poll `wait`, seconds. */
export const CHANNEL_WAIT_MAX_SECONDS = 25;
/** SSE heartbeat comment interval, ms. */
export const CHANNEL_HEARTBEAT_MS = 15_000;

/** Parameters of the offline code (RFC 6238), as the phone gets them at pairing. */
export const TOTP_PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

/** Decisions a signed answer may carry; `report` is "this wasn't me" (denies, notifies, audits). */
export const ANSWER_DECISIONS = ['approve', 'deny', 'report'] as const;
/** One of `ANSWER_DECISIONS`. */
export type AnswerDecision = (typeof ANSWER_DECISIONS)[number];

const Jws = Type.String({ minLength: 1, maxLength: 8192 });

/** `POST /dirauth/pair/enroll` body. */
export const EnrollBodySchema = Type.Object({ enrollment_token: Jws, proof: Jws }, { additionalProperties: false });
/** Enroll body. */
export type EnrollBody = Static<typeof EnrollBodySchema>;

/** The offline-code parameters and the base32 secret (shown to the phone once, at pairing). */
export const TotpInfoSchema = Type.Object({
  secret: Type.String(),
  algorithm: Type.Literal('SHA1'),
  digits: Type.Literal(6),
  period: Type.Literal(30),
});

/** `POST /dirauth/pair/enroll` answer (201): the device, its user, a mobile token pair, the TOTP secret, the API base. */
export const EnrollResultSchema = Type.Object({
  device_id: Type.String(),
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }),
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  totp: TotpInfoSchema,
  api_base: Type.String(),
});
/** Enroll answer. */
export type EnrollResult = Static<typeof EnrollResultSchema>;

/** `POST /dirauth/pair/refresh` body. */
export const DeviceRefreshBodySchema = Type.Object({ refresh_token: Jws }, { additionalProperties: false });

/** `GET /dirauth/pair/challenges` query: `wait` long-polls (seconds), `proof` replaces `X-Device-Proof` for EventSource. */
export const ChallengeListQuerySchema = Type.Object({
  wait: Type.Optional(Type.Integer({ minimum: 1, maximum: CHANNEL_WAIT_MAX_SECONDS })),
  proof: Type.Optional(Jws),
});

/** A pending login challenge as the phone shows it: who, from where, when, and three numbers (one is the browser's). */
export const ChallengeItemSchema = Type.Object({
  challenge_id: Type.String(),
  numbers: Type.Array(Type.Integer({ minimum: 10, maximum: 99 })),
  user: Type.Object({ email: Type.String(), name: Type.String() }),
  client_ip: Type.String(),
  user_agent: Type.String(),
  created_at: Type.String(),
  expires_at: Type.String(),
});
/** One pending challenge. */
export type ChallengeItem = Static<typeof ChallengeItemSchema>;

/** `GET /dirauth/pair/challenges` answer (JSON mode). */
export const ChallengeListSchema = Type.Object({ items: Type.Array(ChallengeItemSchema) });
/** Pending challenges. */
export type ChallengeList = Static<typeof ChallengeListSchema>;

/** `{challenge_id}` of the answer route. */
export const ChallengeParamsSchema = Type.Object({ challenge_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** `POST /dirauth/pair/challenges/{challenge_id}/answer` body. */
export const AnswerBodySchema = Type.Object({ answer: Jws }, { additionalProperties: false });

/** The answer route's result: a wrong number is `denied` too. */
export const AnswerResultSchema = Type.Object({
  challenge_id: Type.String(),
  status: StringEnum(['approved', 'denied'] as const),
});
/** Answer result. */
export type AnswerResult = Static<typeof AnswerResultSchema>;

/** Claims of the enrollment token (header `{alg: ES256, kid, typ: svc-enroll+jwt}`). */
export interface EnrollmentTokenClaims {
  /** `{public_url}/auth`. */
  iss: string;
  aud: typeof ENROLLMENT_AUDIENCE;
  /** User id. */
  sub: string;
  /** The enrollment id (ULID). */
  jti: string;
  /** base64url of 16 random bytes; the proof echoes it. */
  nonce: string;
  iat: number;
  /** iat + 120. */
  exp: number;
}

/** Claims of the enrollment proof (header `{alg: ES256, typ: svc-device-enroll+jwt, jwk}`). */
export interface EnrollmentProofClaims {
  enrollment_id: string;
  nonce: string;
  /** Device name, at most 64 characters. */
  name?: string;
  iat: number;
  exp: number;
}

/** Claims of a device proof (header `{alg: ES256, typ: svc-device+jwt, kid: <device_id>}`). */
export interface DeviceProofClaims {
  /** The device id. */
  sub: string;
  /** `{public_url}/dirauth/pair`. */
  aud: string;
  iat: number;
  exp: number;
  /** Unique, at least 16 characters; refused when seen before its exp. */
  jti: string;
  /** HTTP method. */
  htm: string;
  /** Route path without query, e.g. `/dirauth/pair/challenges`. */
  htu: string;
}

/** Claims of a signed answer (header `{alg: ES256, typ: svc-device-answer+jwt, kid: <device_id>}`). */
export interface AnswerClaims {
  sub: string;
  challenge_id: string;
  decision: AnswerDecision;
  /** The number picked; required for `approve`. */
  number?: number;
  iat: number;
  exp: number;
  jti: string;
}

/** Claims of a mobile refresh token (signed by the auth key). */
export interface MobileRefreshClaims {
  iss: string;
  aud: typeof DEVICE_REFRESH_AUDIENCE;
  /** User id. */
  sub: string;
  /** Device id. */
  did: string;
  /** ULID; equals the device's `current_refresh_jti` while it is the live one. */
  jti: string;
  iat: number;
  exp: number;
}
