/**
 * Public surface of the gateway (spec: "What the service does" 1-6, "Identity headers",
 * "Authentication", "Errors"; DESIGN.md "Identity", "Errors"): the headers it strips and stamps, its
 * fixed bodies, the renderer's Content-Security-Policy, its error table and the runtime seams
 * `start(cfg, runtime)` accepts.
 *
 * Imports nothing from Node, so the renderer and the Electron shell may import values from it.
 */
import type { OpsControl } from '../../shared/ops-control.js';
import type { KeyAdmin } from '../../shared/key-admin.js';
import type { CommonErrorCode, ErrorTable } from '../../shared/kit/domain-error.js';
import { Type, type Static } from '../../shared/kit/typebox.js';
import type { ServiceStatus } from '../../shared/runtime.js';
import type { ChallengeMethod } from '../../auth/src/contracts.js';

/** The seven identity headers stripped from every inbound request (spec: "Identity headers"). */
export const IDENTITY_HEADERS = ['x-user-id', 'x-user-email', 'x-user-roles', 'x-tenant-id', 'x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token'] as const;

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the ones undici sets itself; never forwarded upstream. */
export const HOP_BY_HOP_HEADERS = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect'] as const;

/**
 * Inbound headers never forwarded to a service: hop-by-hop ones, the identity headers (the gateway
 * stamps its own), the user's bearer and cookies, and client-supplied forwarding headers (the
 * gateway sets `x-forwarded-*` itself).
 */
export const STRIP_INBOUND: ReadonlySet<string> = new Set<string>([
  ...HOP_BY_HOP_HEADERS, ...IDENTITY_HEADERS, 'authorization', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-real-ip', 'cookie',
]);

/** Upstream answer headers never passed back to the client (hop-by-hop). */
export const STRIP_OUTBOUND: ReadonlySet<string> = new Set<string>(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade']);

/** Response header carrying the turn id of an authenticated request (DESIGN.md "Request bodies"). */
export const TURN_ID_HEADER = 'x-svc-turn-id';

/** Request and response header correlating one request across services. */
export const CORRELATION_ID_HEADER = 'x-correlation-id';

/** An inbound correlation id the gateway keeps; any other value is replaced by a fresh UUID. */
export const CORRELATION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The fixed 502 body of the spec ("Errors"), sent byte for byte when a service cannot be reached. */
export const SERVICE_UNAVAILABLE_BODY = '{"error":"service unavailable"}';

/** The Content-Security-Policy of the renderer (same as the Electron shell's `app://`). */
export const RENDERER_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** Cache-Control of renderer files: hashed `/assets/*` are immutable, everything else revalidates. */
export const RENDERER_CACHE_CONTROL = { immutable: 'public, max-age=31536000, immutable', revalidate: 'no-cache' } as const;

/**
 * Error codes of the gateway and their HTTP statuses, in addition to the shared ones it also
 * answers (`payload_too_large` 413 over `maxRequestBodyBytes`, or over the owning service's limit of
 * the route with `limit_bytes`, issue 11 item 4; `rate_limited` 429 with `Retry-After`,
 * `tenant_mismatch` 403, `admin_required` 403, `not_found` 404). Every error body is `{error, code}`; the 401s carry
 * `WWW-Authenticate`.
 *
 * | code | status | when |
 * |---|---|---|
 * | `token_missing` | 401 | a route behind the bearer chain without `Authorization` |
 * | `token_invalid` | 401 | not `Bearer <jws>`, malformed, unsigned, untrusted issuer, bad signature, audience or claims |
 * | `token_expired` | 401 | `exp` passed (beyond the clock tolerance) |
 * | `token_revoked` | 401 | the auth service revoked the token's subject (disabled, password changed) or session (issue 11 item 9) |
 *
 * The second-factor codes (issue 14 item 3) are the auth service's answers to
 * `POST /v1/auth/login/2fa` and `POST /v1/auth/login`, passed through with their statuses; the gateway
 * itself answers `challenge_expired` when auth released a challenge whose parked login is gone.
 */
export const GATEWAY_ERRORS = {
  token_missing: 401,
  token_invalid: 401,
  token_expired: 401,
  token_revoked: 401,
  /** A `Host` header that names neither loopback, the public URL's host nor an allowed host. */
  host_not_allowed: 403,
  /** A wrong offline (TOTP) or recovery code; five wrong codes deny the challenge. */
  code_invalid: 401,
  /** The phone denied the login, or the wrong number was picked, or "this wasn't me". */
  challenge_denied: 403,
  /** The challenge was already released once. */
  challenge_used: 409,
  /** The challenge expired, is unknown, or its parked login is gone. */
  challenge_expired: 410,
  /** Too many challenges for the user in ten minutes (push fatigue). */
  challenge_throttled: 429,
  /** Issue 19 item 2: the passphrase does not open the backup archive. */
  bad_passphrase: 400,
  /** Issue 19 item 2: the backup archive does not authenticate (changed, cut short, not an archive). */
  archive_tampered: 400,
  /** Issue 19 item 2: a backup or restore is already running. */
  backup_busy: 409,
  /** Issue 19 item 5: the backup was cancelled through `POST /v1/admin/jobs/{id}/cancel`; no archive was kept. */
  backup_cancelled: 409,
  /** Issue 19 item 5: the job has finished and can no longer be cancelled. */
  job_not_cancellable: 409,
  /** Issue 19 item 3: `POST /v1/admin/secrets/{kind}/rotate` names no key kind. */
  key_kind_unknown: 404,
  /** Issue 19 item 4: an update bundle whose Ed25519 signature is missing or not by a trusted publisher key. */
  bad_signature: 400,
  /** Issue 19 item 4: a malformed or truncated update bundle, or a file whose SHA-256 differs from its manifest. */
  bad_bundle: 400,
  /** Issue 19 item 1: no service of that name. */
  service_not_found: 404,
  /** Issue 19 item 1: the gateway cannot restart itself through its own request. */
  restart_refused: 409,
  /** Issue 19 item 4: rollback with no previous version kept. */
  no_previous_version: 409,
} as const satisfies ErrorTable;

/** A code of `GATEWAY_ERRORS`, or a common one. */
export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS | CommonErrorCode;

/**
 * Claims the gateway reads from a validated bearer token (RFC 7519 registered claims, the
 * issuer's `realm_access`/`groups`, and `auth_method` of the embedded issuers).
 */
export interface ValidatedClaims {
  sub: string;
  iss: string;
  /** Expiry, Unix seconds. */
  exp: number;
  /** Issued at, Unix seconds. */
  iat: number;
  aud?: string | string[];
  nbf?: number;
  jti?: string;
  email?: string;
  name?: string;
  preferred_username?: string;
  realm_access?: { roles?: unknown };
  groups?: unknown;
  sid?: string;
  auth_method?: string;
  [claim: string]: unknown;
}

/** Validates bearer tokens (the gateway's `TokenValidator`, or a test double). */
export interface BearerValidator {
  /**
   * @returns the token's claims.
   * @throws DomainError `token_invalid` / `token_expired`.
   */
  validate(token: string): Promise<ValidatedClaims>;
}

/** Largest body of `POST /v1/auth/login/2fa`, bytes (issue 14 item 3). */
export const LOGIN_2FA_BODY_LIMIT_BYTES = 4 * 1024;

/** A ULID (Crockford base32, 26 characters): the shape of a challenge id. */
export const CHALLENGE_ID_PATTERN = '^[0-9A-HJKMNP-TV-Z]{26}$';

/**
 * `POST /v1/auth/login/2fa` body (DESIGN.md "Request bodies the spec leaves open"): the challenge,
 * and optionally the phone's offline code (6 digits, RFC 6238) or a recovery code (`xxxx-xxxx-xxxx`).
 */
export const Login2faBodySchema = Type.Object({
  challenge_id: Type.String({ pattern: CHALLENGE_ID_PATTERN }),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
}, { additionalProperties: false });
/** `POST /v1/auth/login/2fa` body. */
export type Login2faBody = Static<typeof Login2faBodySchema>;

/**
 * The 202 answer of `POST /v1/auth/login` when a second factor is required (DESIGN.md "Identity":
 * `{challenge_id, methods, number_match?}`; spec "Mobile-push second factor" step 3). No token:
 * the bundle stays parked under `challenge_id`. `number_match` (10-99) is shown by the browser;
 * `expires_at` RFC 3339; `enrollment_url` only when `methods` is `["enroll", ...]` (an enforced user
 * without a device pairs first).
 */
export const LoginChallengeAnswerSchema = Type.Object({
  challenge_id: Type.String(),
  methods: Type.Array(Type.String()),
  number_match: Type.Integer({ minimum: 10, maximum: 99 }),
  expires_at: Type.String(),
  enrollment_url: Type.Optional(Type.String()),
});
/** The 202 answer of `POST /v1/auth/login` under a second factor. */
export type LoginChallengeAnswer = Omit<Static<typeof LoginChallengeAnswerSchema>, 'methods'> & { methods: ChallengeMethod[] };

/** The 202 answer of `POST /v1/auth/login/2fa` while the phone has not answered. */
export const Login2faPendingSchema = Type.Object({ status: Type.Literal('pending') });
/** `{status: "pending"}`. */
export type Login2faPending = Static<typeof Login2faPendingSchema>;

/** Host hooks and test seams of `start(cfg, runtime)`. */
export interface GatewayRuntime {
  /** Latest status of every service, when a supervisor runs the stack (else the gateway probes). */
  statusSnapshot?: () => ServiceStatus[];
  /** The supervisor's control channel (issue 19 items 1, 4), when one runs the stack: routes/ops.ts. */
  opsControl?: OpsControl;
  /** The supervisor's key channel (issue 19 item 3), when one runs the stack: routes/keys.ts. */
  keyAdmin?: KeyAdmin;
  /** Test seam: a validator with injected keys instead of the configured issuers' JWKS. */
  validator?: BearerValidator;
  /** Test seam: how long a turn event waits in the outbox to share a POST to audit, ms (default 20). */
  turnEventBatchMs?: number;
}

/** Body of `GET /v1/admin/status` and `GET /v1/admin/services` (admin only). */
export interface GatewayStatus {
  tenant_id: string;
  auth_enabled: boolean;
  services: ServiceStatus[];
}

/** Issue 19 item 3: `/v1/admin/secrets` shapes. */
export * from './contracts/keys.js';
