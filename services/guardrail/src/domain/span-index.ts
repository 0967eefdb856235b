/**
 * Overlap queries over text spans in O(log n) each, so recognisers that keep "the spans found so
 * far" stay linear in their input instead of comparing every new span with every kept one
 * (issue 11 item 6: a 100,000-character input must not make a scanner quadratic). Pure: no I/O.
 */

/** A half-open span `[start, end)` of UTF-16 offsets. */
export interface Span { start: number; end: number }

/** Index of the first element of `xs` (sorted ascending by `key`) whose key is >= `v`. */
function lowerBound<T>(xs: readonly T[], v: number, key: (x: T) => number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(xs[mid]!) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A fixed set of spans (they may overlap each other) answering whether `[a, b)` overlaps any of
 * them (`start < b && a < end`, the test the recognisers use), in O(log n) after an O(n log n) build.
 */
export class SpanIndex {
  private readonly starts: number[];
  /** `maxEnd[i]`: the largest end among the first i + 1 spans in start order. */
  private readonly maxEnd: number[];

  constructor(spans: Iterable<Span>) {
    const sorted = [...spans].sort((x, y) => x.start - y.start);
    this.starts = sorted.map((s) => s.start);
    this.maxEnd = [];
    let m = -Infinity;
    for (const s of sorted) {
      m = Math.max(m, s.end);
      this.maxEnd.push(m);
    }
  }

  /** True when some span has `start < b` and `end > a`. */
  overlaps(a: number, b: number): boolean {
    const k = lowerBound(this.starts, b, (x) => x);
    return k > 0 && this.maxEnd[k - 1]! > a;
  }
}

/**
 * A growing set of pairwise disjoint, non-empty spans kept sorted by start: `overlaps` is
 * O(log n) (only the last span starting before `b` can reach past `a`), `insert` a binary search
 * plus an array splice.
 */
export class DisjointSpans<T extends Span> {
  /** The spans, sorted by start. */
  readonly items: T[] = [];

  /** True when some span has `start < b` and `end > a`. */
  overlaps(a: number, b: number): boolean {
    const k = lowerBound(this.items, b, (s) => s.start);
    return k > 0 && this.items[k - 1]!.end > a;
  }

  /** Add `s`; the caller has checked that it overlaps none of the spans and is non-empty. */
  insert(s: T): void {
    this.items.splice(lowerBound(this.items, s.start, (x) => x.start), 0, s);
  }
}

/**
 * A growing set of spans (any overlaps) whose starts are known in advance, answering the same
 * overlap test in O(log n) with O(log n) inserts whatever the insertion order: a Fenwick tree of
 * the largest end per start, over the given starts. For choosing among many candidate spans
 * (`resolveOverlaps`), where inserting into a sorted array could cost O(n) per insert.
 */
export class GrowingSpanIndex {
  private readonly starts: number[];
  private readonly tree: number[];

  /** @param starts every start that will be inserted (any order, duplicates allowed) */
  constructor(starts: Iterable<number>) {
    this.starts = [...new Set(starts)].sort((a, b) => a - b);
    this.tree = new Array<number>(this.starts.length + 1).fill(-Infinity);
  }

  /** Add `[start, end)`; `start` must be one of the constructor's starts. */
  insert(start: number, end: number): void {
    for (let i = lowerBound(this.starts, start, (x) => x) + 1; i < this.tree.length; i += i & -i) {
      if (this.tree[i]! < end) this.tree[i] = end;
    }
  }

  /** True when some inserted span has `start < b` and `end > a`. */
  overlaps(a: number, b: number): boolean {
    let m = -Infinity;
    for (let i = lowerBound(this.starts, b, (x) => x); i > 0; i -= i & -i) if (this.tree[i]! > m) m = this.tree[i]!;
    return m > a;
  }
}
