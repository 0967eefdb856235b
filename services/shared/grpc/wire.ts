/**
 * The conventions both ends of a gRPC hop share (issue 20 item 2; spec "Identity headers": gRPC
 * metadata keys `svc-turn-id`, `svc-cap-token`).
 *
 * Request metadata: `authorization` (`Bearer <service token>`), `svc-principal` (the signed principal
 * of `X-Svc-Principal`), `svc-turn-id`, `svc-cap-token`, and the other headers the HTTP hop carries
 * (`x-user-*`, `x-tenant-id`, `x-correlation-id`, the `x-svc-client` hop stamp, `x-forwarded-*`) under
 * their own names. Answer trailers: `svc-http-status` (the status the HTTP route answers, also on
 * success: 200 or 201), and on failure `svc-error-body-bin` (the exact JSON error body) and
 * `svc-error-headers-bin` (extra headers such as `www-authenticate`, JSON), so the gateway re-emits
 * the identical HTTP error answer; the gRPC status code is the HTTP status's nearest code.
 */
import { status as Status } from '@grpc/grpc-js';

/** Metadata key of the signed principal. */
export const MD_PRINCIPAL = 'svc-principal';
/** Metadata key of the turn id. */
export const MD_TURN_ID = 'svc-turn-id';
/** Metadata key of the capability token. */
export const MD_CAP_TOKEN = 'svc-cap-token';
/** Trailer: the HTTP status of the answer. */
export const TR_HTTP_STATUS = 'svc-http-status';
/** Trailer (binary): the JSON error body. */
export const TR_ERROR_BODY = 'svc-error-body-bin';
/** Trailer (binary): extra error headers, JSON object. */
export const TR_ERROR_HEADERS = 'svc-error-headers-bin';

/** HTTP header name -> metadata key, for the three stamps the spec names. */
export const HEADER_TO_METADATA: Readonly<Record<string, string>> = {
  'x-svc-principal': MD_PRINCIPAL, 'x-svc-turn-id': MD_TURN_ID, 'x-svc-cap-token': MD_CAP_TOKEN,
};
/** Metadata key -> HTTP header name (the inverse of `HEADER_TO_METADATA`). */
export const METADATA_TO_HEADER: Readonly<Record<string, string>> = {
  [MD_PRINCIPAL]: 'x-svc-principal', [MD_TURN_ID]: 'x-svc-turn-id', [MD_CAP_TOKEN]: 'x-svc-cap-token',
};

/** Headers that describe one HTTP message, not the call: never copied into metadata. */
export const NOT_METADATA: ReadonlySet<string> = new Set([
  'host', 'connection', 'content-length', 'content-type', 'transfer-encoding', 'accept-encoding', 'te', 'user-agent',
  'keep-alive', 'upgrade', 'expect', 'accept', 'proxy-connection', 'trailer',
]);

/** The gRPC status code nearest to HTTP `status`. */
export function grpcCodeOf(status: number): Status {
  if (status < 400) return Status.OK;
  switch (status) {
    case 400: case 413: case 415: case 422: return status === 413 ? Status.RESOURCE_EXHAUSTED : Status.INVALID_ARGUMENT;
    case 401: return Status.UNAUTHENTICATED;
    case 403: return Status.PERMISSION_DENIED;
    case 404: return Status.NOT_FOUND;
    case 409: return Status.ALREADY_EXISTS;
    case 429: return Status.RESOURCE_EXHAUSTED;
    case 501: return Status.UNIMPLEMENTED;
    case 503: return Status.UNAVAILABLE;
    case 504: return Status.DEADLINE_EXCEEDED;
    default: return status >= 500 ? Status.INTERNAL : Status.FAILED_PRECONDITION;
  }
}
