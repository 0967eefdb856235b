/**
 * The embedded IdP's token endpoint as the gateway's `POST /v1/auth/login` and `POST /v1/auth/refresh`
 * use it through the confidential client `svc-web-password` (issue 15 item 1; spec "Bearer tokens and
 * trusted issuers" 1, "Public auth surface").
 *
 * Token-endpoint errors keep their RFC 6749 §5.2 body `{error, error_description}` and add our stable
 * `code` beside it (`TokenEndpointErrorBody`), so the gateway answers the same `{error, code}` bodies
 * and statuses as auth's own `/v1/auth/login` and `/v1/auth/refresh`:
 *
 * | grant | `error` | `code` | status |
 * |---|---|---|---|
 * | password | `invalid_grant` | `invalid_credentials` | 400 |
 * | password | `invalid_grant` | `account_disabled` | 400 |
 * | password | `invalid_grant` | `directory_account` (no attempt counted: sign in through auth's `/v1/auth/login`) | 400 |
 * | password | `login_throttled` | `login_throttled` (+ `Retry-After`) | 429 |
 * | password | `unauthorized_client` | `password_login_disabled` | 400 |
 * | password | `temporarily_unavailable` | `directory_unavailable` | 503 |
 * | refresh_token | `invalid_grant` | `refresh_token_invalid`, `refresh_token_reused`, `account_disabled` | 400 |
 *
 * Node-free (contracts rule).
 */

/** `code` of a password grant for a username that signs in through the corporate directory. */
export const DIRECTORY_ACCOUNT_CODE = 'directory_account';

/** The stable codes the token endpoint adds to its errors (see the table above). */
export const TOKEN_ENDPOINT_CODES = [
  'invalid_credentials', 'account_disabled', DIRECTORY_ACCOUNT_CODE, 'login_throttled', 'password_login_disabled',
  'directory_unavailable', 'directory_email_missing', 'directory_account_conflict',
  'refresh_token_invalid', 'refresh_token_reused',
] as const;

/** A code of `TOKEN_ENDPOINT_CODES`. */
export type TokenEndpointCode = (typeof TOKEN_ENDPOINT_CODES)[number];

/** An error body of the embedded IdP's token endpoint. */
export interface TokenEndpointErrorBody {
  /** RFC 6749 §5.2 error (`invalid_grant`, ...). */
  error: string;
  error_description?: string;
  /** Our stable code, when the error is one of `TOKEN_ENDPOINT_CODES`. */
  code?: TokenEndpointCode;
}
