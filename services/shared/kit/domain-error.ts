/**
 * Errors as data (DESIGN.md "Errors"; issue 10 "Errors as data").
 *
 * Domain code throws a `DomainError` with a typed code and never an HTTP status. Each service's
 * `contracts.ts` holds one `ErrorTable` from its codes to HTTP statuses; the kit's error plugin looks
 * the status up there (fastify keeps its error codes in one place the same way). A code the spec lets
 * answer with two statuses (`provider_key_missing`, `model_unknown`) maps to a small table keyed by
 * the situation the domain names when it throws.
 *
 * This module imports nothing from Node, so `contracts.ts` files (and the renderer) may import it.
 */

/** The codes every service may throw without listing them (DESIGN.md "Errors"). */
export const COMMON_ERRORS = {
  invalid_request: 400,
  /** A JSON body nested deeper than the service accepts (issue 11 item 4). */
  json_too_deep: 400,
  unauthorized: 401,
  principal_missing: 401,
  principal_invalid: 401,
  cap_token_invalid: 401,
  /** No service token on a request to a service port (issue 15 item 4, kit/service-auth.ts). */
  service_token_missing: 401,
  /** A service token that failed a check: signature, issuer, audience, client, allow-list, expiry. */
  service_token_invalid: 401,
  forbidden: 403,
  admin_required: 403,
  tenant_mismatch: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  not_ready: 503,
} as const satisfies ErrorTable;

/** A common code. */
export type CommonErrorCode = keyof typeof COMMON_ERRORS;

/**
 * From error code to HTTP status. A value that is an object maps the situation a domain names
 * (`DomainError.situation`) to a status; its `default` key answers when none is named.
 */
export type ErrorTable = Readonly<Record<string, number | Readonly<Record<string, number>>>>;

/** Extra JSON fields an error adds to its `{error, code}` body (e.g. a document id, the field path). */
export type ErrorExtra = Readonly<Record<string, unknown>>;

/** Options of a `DomainError`. */
export interface DomainErrorOptions {
  /** Extra body fields beside `error` and `code` (never secrets or internals). */
  extra?: ErrorExtra;
  /** Response headers, e.g. `retry-after`. */
  headers?: Readonly<Record<string, string>>;
  /** Which row of a multi-status code applies (e.g. `"chat"` for `provider_key_missing`). */
  situation?: string;
  /** The underlying error, kept for logs only. */
  cause?: unknown;
}

/**
 * An error a domain throws: a stable snake_case `code`, a human message and optional body fields.
 * The HTTP status comes from the service's `ErrorTable`, never from the domain.
 *
 * @example throw new DomainError('document_not_found', `no document ${id}`)
 */
export class DomainError<C extends string = string> extends Error {
  readonly code: C;
  readonly extra: ErrorExtra | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly situation: string | undefined;

  constructor(code: C, message: string, opts: DomainErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'DomainError';
    this.code = code;
    this.extra = opts.extra;
    this.headers = opts.headers;
    this.situation = opts.situation;
  }
}

/** True when `err` is a `DomainError` (also across module copies, by shape). */
export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError
    || (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'DomainError' && typeof (err as { code?: unknown }).code === 'string');
}

/**
 * The HTTP status of `code` in `table` (then `COMMON_ERRORS`), for `situation` when the code has
 * several. @returns 500 for a code no table lists (a bug: every thrown code belongs in a table).
 */
export function statusOf(table: ErrorTable, code: string, situation?: string): number {
  const row = Object.prototype.hasOwnProperty.call(table, code) ? table[code]
    : (COMMON_ERRORS as ErrorTable)[code];
  if (row === undefined) return 500;
  if (typeof row === 'number') return row;
  return (situation !== undefined ? row[situation] : undefined) ?? row.default ?? 500;
}

/** True when `code` is listed in `table` or is a common code. */
export function isKnownCode(table: ErrorTable, code: string): boolean {
  return Object.prototype.hasOwnProperty.call(table, code) || Object.prototype.hasOwnProperty.call(COMMON_ERRORS, code);
}

/**
 * 400 `invalid_request` from a domain, naming the offending field path (e.g. `body.email`), as the
 * shared error handler names schema failures.
 */
export function invalidInput(message: string, field?: string): DomainError<'invalid_request'> {
  return new DomainError('invalid_request', message, field === undefined ? {} : { extra: { field } });
}

/** 404 `not_found` from a domain. */
export function notFoundError(message = 'not found'): DomainError<'not_found'> {
  return new DomainError('not_found', message);
}
