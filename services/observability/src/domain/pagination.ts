/**
 * Cursor pagination of observability's lists (DESIGN.md: lists answer `{items, next_cursor?}`):
 * ask the store for one row more than the page; when it comes, the page has a next cursor (the
 * last item's key). Pure.
 */

/** A page: its items and, when more follow, the cursor of the next page. */
export interface Page<T> { items: T[]; next_cursor?: string }

/**
 * Cut a page from `rows` (fetched with `limit + 1`).
 * @param cursorOf the key of an item the next page starts after.
 */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (item: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  return rows.length > limit ? { items, next_cursor: cursorOf(items[items.length - 1]!) } : { items };
}
