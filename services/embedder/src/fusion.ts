/**
 * Reciprocal-rank fusion and the normalised score (docs/decisions-knowledge.md "Scores").
 *
 * Each retriever gives a ranked list. RRF: `fused = Σ 1/(k + rank)` (k = 60, Cormack et al. 2009).
 * The normalised score reported and compared with SEARCH_SCORE_THRESHOLD is
 * `x / (x + 0.5)` with `x = (k + 1) · fused`: rank 1 of one retriever gives 0.67, rank 1 of two gives
 * 0.8, and the default threshold 0.5 keeps whatever ranks within about the top 60 of one retriever
 * (or lower in both), so good results are never cut while stray tail matches are. It is monotone in
 * the fused value, so order and score agree.
 */

/** RRF constant. */
export const RRF_K = 60;

/** A ranked candidate of one retriever. */
export interface Ranked<T> { key: T; rank: number }

/** Fuse ranked lists; returns keys by fused value, best first, with per-list ranks. */
export function fuse<T>(lists: Array<{ name: string; items: Array<Ranked<T>> }>, k = RRF_K): Array<{ key: T; fused: number; ranks: Record<string, number> }> {
  const acc = new Map<T, { key: T; fused: number; ranks: Record<string, number> }>();
  for (const l of lists) {
    for (const it of l.items) {
      let e = acc.get(it.key);
      if (!e) { e = { key: it.key, fused: 0, ranks: {} }; acc.set(it.key, e); }
      e.fused += 1 / (k + it.rank);
      e.ranks[l.name] = it.rank;
    }
  }
  return [...acc.values()].sort((a, b) => b.fused - a.fused);
}

/** The 0-1 score of a fused value (see the module comment). */
export function normalisedScore(fused: number, k = RRF_K): number {
  const x = (k + 1) * fused;
  return x / (x + 0.5);
}
