/**
 * The scanner port's pure side (issue 11 item 6 "The guard must not be slowed into failing open"):
 * why a scan could not finish (`ScanIncomplete`), the failed-closed answer a check gives then
 * (`block` with a reason naming the cause, through the `check_budget` scanner result), and an
 * in-process `Scanner` for tests and tools. The service's scanner is the worker pool in
 * scanning/scan-pool.ts. Pure: no I/O.
 */
import type { ContentSource } from '../contracts.js';
import { runCheck } from './check.js';
import { warmUpHarmful } from './harmful.js';
import { warmUpInjection } from './injection.js';
import { DEFAULT_POLICY } from './policy.js';
import { findEntities } from './pii.js';
import type { CheckOutcome, Scanner } from './ports.js';

/** Why a scan did not finish: over its time budget, no worker free in time (or queue full), the worker failed, the pool closed. */
export type ScanIncompleteCause = 'timeout' | 'busy' | 'crashed' | 'closed';

/** A scan that could not finish; the check answers failed-closed (`block`) for that input only. */
export class ScanIncomplete extends Error {
  /**
   * @param kind why it did not finish
   * @param budgetMs the per-scan budget, ms (for the reason text)
   */
  constructor(readonly kind: ScanIncompleteCause, readonly budgetMs: number) {
    super(`scan ${kind} (budget ${budgetMs} ms)`);
    this.name = 'ScanIncomplete';
  }
}

/** Scanner name of the failed-closed result (spec "Guardrail input check result" `scanner_results[]`). */
export const CHECK_BUDGET_SCANNER = 'check_budget';

/** Reason text per cause (no content, no paths). */
function why(e: ScanIncomplete): string {
  switch (e.kind) {
    case 'timeout': return `the check did not finish within ${e.budgetMs} ms`;
    case 'busy': return `the guard was too busy to start the check within ${e.budgetMs} ms`;
    case 'crashed': return 'the check failed before it finished';
    default: return 'the guard is shutting down';
  }
}

/**
 * The failed-closed outcome of a check that could not finish: `block`, reason
 * `blocked: <why> (failed closed)`, one `check_budget` scanner result (`is_safe: false`, risk 1).
 */
export function incompleteOutcome(e: ScanIncomplete, direction: 'input' | 'output', source: ContentSource): CheckOutcome {
  const text = why(e);
  return {
    result: {
      decision: 'block', reason: `blocked: ${text} (failed closed)`,
      scanner_results: [{ scanner_name: CHECK_BUDGET_SCANNER, is_safe: false, risk_score: 1, detail: `${e.kind}: ${text}` }],
      rewritten_content: null,
    },
    verdict: { direction, source, fired: [CHECK_BUDGET_SCANNER], blocked_by: [CHECK_BUDGET_SCANNER], rules: [], entity_counts: {}, uncertain: false },
  };
}

/** The scanners on the calling thread (tests, tools); never throws `ScanIncomplete`. */
export const inProcessScanner: Scanner = {
  check: async (content, opts) => runCheck(content, opts),
  entities: async (content, opts) => findEntities(content, opts),
};

/**
 * Compile the scanners' patterns before the first check (a scan worker calls this before it says it
 * is ready: compiling several hundred patterns takes over a second on a busy machine and must not
 * count against any input's budget; issue 11 item 6, issue 16 item 4).
 */
export function warmUpScanners(): void {
  warmUpInjection();
  warmUpHarmful();
  for (const text of ['Warm up: mail a@b.example, call +1 415 555 0100, key sk-proj-0000000000000000000000.', 'Warm up \u2014 \u00fcber \u4e2d.']) {
    for (const source of ['user', 'document', 'tool'] as const) runCheck(text, { direction: 'input', source, policy: DEFAULT_POLICY });
    runCheck(text, { direction: 'output', policy: DEFAULT_POLICY, input: '', systemPrompt: 'You are a helpful assistant.' });
  }
}
