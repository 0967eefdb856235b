/**
 * Checks of a producer's notification (spec "Limits": payload at most 8 KiB serialised and 8 levels
 * deep; POST /v1/internal/notifications needs a service in NOTIFICATIONS_PRODUCERS; issue 13 item 1).
 * Pure functions, unit-tested.
 */
import { jsonNestingDepth } from '../../../../shared/kit/json-depth.js';
import { isServicePrincipal, type Principal } from '../../../../shared/identity/principal-types.js';
import { NOTIFICATION_PAYLOAD_MAX_BYTES, NOTIFICATION_PAYLOAD_MAX_DEPTH } from '../../contracts.js';
import { runtimeError } from '../errors.js';

const SERVICE_PREFIX = 'service:';

/**
 * The producer's service name when `caller` may post notifications.
 * @throws DomainError `service_account_required` (403) for anything but a service principal
 *   (`isServicePrincipal`: a user's principal fails whatever roles it claims), `producer_not_allowed`
 *   (403) for a service outside `allowed` (NOTIFICATIONS_PRODUCERS).
 */
export function producerOf(caller: Pick<Principal, 'id' | 'auth_method'>, allowed: ReadonlySet<string>): string {
  if (!isServicePrincipal(caller)) throw runtimeError('service_account_required', 'only services post notifications');
  const name = caller.id.slice(SERVICE_PREFIX.length);
  if (!allowed.has(name)) throw runtimeError('producer_not_allowed', `service ${name} is not an allowed notification producer`);
  return name;
}

/**
 * The payload as stored JSON text (null when absent). Depth is measured by one iterative scan of
 * the serialised text (json-depth.ts), so no recursion runs over the producer's nesting.
 * @throws DomainError `payload_too_large` (413) above `NOTIFICATION_PAYLOAD_MAX_BYTES` UTF-8 bytes,
 *   `payload_too_deep` (400) above `NOTIFICATION_PAYLOAD_MAX_DEPTH` levels (`{}` is 1),
 *   `invalid_request` when the payload is not a JSON object.
 */
export function payloadText(payload: unknown): string | null {
  if (payload === undefined || payload === null) return null;
  if (typeof payload !== 'object' || Array.isArray(payload)) throw runtimeError('invalid_request', 'payload must be a JSON object', { extra: { field: 'body.payload' } });
  const text = JSON.stringify(payload);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > NOTIFICATION_PAYLOAD_MAX_BYTES) {
    throw runtimeError('payload_too_large', `payload is ${bytes} bytes; at most ${NOTIFICATION_PAYLOAD_MAX_BYTES} are accepted`, { extra: { max_bytes: NOTIFICATION_PAYLOAD_MAX_BYTES } });
  }
  if (jsonNestingDepth(text, NOTIFICATION_PAYLOAD_MAX_DEPTH) > NOTIFICATION_PAYLOAD_MAX_DEPTH) {
    throw runtimeError('payload_too_deep', `payload nests deeper than ${NOTIFICATION_PAYLOAD_MAX_DEPTH} levels`, { extra: { max_depth: NOTIFICATION_PAYLOAD_MAX_DEPTH } });
  }
  return text;
}

/** Encode a list cursor (the last id of a page). */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/** Decode a list cursor. @throws DomainError `invalid_request` naming `querystring.cursor`. */
export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) throw runtimeError('invalid_request', 'cursor is not valid', { extra: { field: 'querystring.cursor' } });
  return id;
}
