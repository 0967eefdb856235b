/**
 * Error codes and the error type every service throws (DESIGN.md "Errors").
 *
 * Every error body is `{error, code}`: `error` is human-readable, `code` a stable snake_case
 * string that clients switch on. 5xx bodies never carry internals (stack, SQL, paths).
 */

/** Stable error codes shared by all services. Services may add their own in `contracts.ts`. */
export type CommonErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'token_missing'
  | 'token_invalid'
  | 'token_expired'
  | 'forbidden'
  | 'admin_required'
  | 'tenant_mismatch'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable'
  | 'not_ready';

/** The JSON error body of every 4xx/5xx answer: `{error, code}` plus optional field path. */
export interface ErrorBody {
  error: string;
  code: string;
  /** JSON pointer-ish path of the offending field for `invalid_request`, when known. */
  field?: string;
  /** Extra fields some errors carry (e.g. a document id). */
  [extra: string]: unknown;
}

/**
 * An error with an HTTP status and a stable code. Thrown by routes and domain code; the shared
 * error handler turns it into `{error, code}` with `status`.
 *
 * @example throw new AppError(404, 'not_found', 'user not found')
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, code: string, message: string, opts: { field?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.field = opts.field;
    this.headers = opts.headers;
  }

  /** The JSON body for this error. */
  toBody(): ErrorBody {
    const body: ErrorBody = { error: this.message, code: this.code };
    if (this.field !== undefined) body.field = this.field;
    return body;
  }
}

/** 400 `invalid_request` naming the field path. */
export function invalidRequest(message: string, field?: string): AppError {
  return new AppError(400, 'invalid_request', message, field === undefined ? {} : { field });
}

/** 404 `not_found`. */
export function notFound(message = 'not found'): AppError {
  return new AppError(404, 'not_found', message);
}

/** 403 `forbidden` (or a more specific code). */
export function forbidden(message = 'forbidden', code = 'forbidden'): AppError {
  return new AppError(403, code, message);
}

/** 401 with a token code. */
export function unauthorized(message = 'authentication required', code = 'unauthorized'): AppError {
  return new AppError(401, code, message, { headers: { 'www-authenticate': 'Bearer' } });
}
