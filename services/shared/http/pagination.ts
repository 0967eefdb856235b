/**
 * Cursor pagination shared by list routes (DESIGN.md "Inside a service"; issue 10 "one cursor
 * pagination helper"): a page is `{items, next_cursor?}`; `next_cursor` is present only when more
 * items follow and is passed back as `?cursor=` for the next page.
 *
 * A cursor is opaque to clients: base64url of the JSON of a small keyset position the service
 * chooses (e.g. `{c: created_at, i: id}`). Services fetch `limit + 1` rows after the position,
 * and `pageFromRows` turns them into a page. A cursor this service did not issue is refused with
 * 400 `invalid_request` naming the field.
 */
import { DomainError } from '../kit/domain-error.js';

/** A page of a list: `next_cursor` only when more items follow. */
export interface Page<T> {
  items: T[];
  next_cursor?: string;
}

/** Bounds of a `limit` query parameter. */
export interface LimitBounds {
  /** Used when no limit is given. */
  default: number;
  /** Largest limit answered; larger ones are lowered to it. */
  max: number;
  /** Smallest limit (default 1). */
  min?: number;
}

/** Encode a keyset position as an opaque cursor (base64url of its JSON). */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * Decode a cursor made by `encodeCursor` and check its shape with `isPosition`.
 * @returns the position, or null when the cursor is malformed or of another shape.
 */
export function decodeCursor<P>(cursor: string, isPosition: (v: unknown) => v is P): P | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return isPosition(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Decode a cursor, or refuse it.
 * @param field the field path named in the error (e.g. `querystring.cursor`).
 * @throws DomainError `invalid_request` (400) with `field` when the cursor is not one this service issued.
 */
export function requireCursor<P>(cursor: string, isPosition: (v: unknown) => v is P, field = 'querystring.cursor'): P {
  const p = decodeCursor(cursor, isPosition);
  if (p === null) throw new DomainError('invalid_request', 'cursor is not a value this service issued', { extra: { field } });
  return p;
}

/**
 * The limit to use: `raw` when it is a number (rounded down), else the default, clamped to
 * `[min, max]`.
 */
export function clampLimit(raw: number | string | undefined | null, bounds: LimitBounds): number {
  const min = bounds.min ?? 1;
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : typeof raw === 'number' ? raw : NaN;
  const v = Number.isFinite(n) ? Math.floor(n) : bounds.default;
  return Math.min(bounds.max, Math.max(min, v));
}

/**
 * A page from rows fetched with `limit + 1`: the first `limit` rows, and a cursor at the last row
 * kept when more rows followed.
 * @param positionOf the keyset position of a row (encoded as the cursor).
 */
export function pageFromRows<T>(rows: readonly T[], limit: number, positionOf: (row: T) => unknown): Page<T> {
  const items = rows.slice(0, limit);
  const page: Page<T> = { items };
  if (rows.length > limit && items.length > 0) page.next_cursor = encodeCursor(positionOf(items[items.length - 1]!));
  return page;
}
