/**
 * Answer headers of chat and embeddings calls: `x-svc-generation-id` (the generation record),
 * `x-svc-route` (`<provider>/<model>` that served) and, past a soft budget, `x-svc-budget-warning`.
 */
import { BUDGET_WARNING_HEADER, GENERATION_ID_HEADER, ROUTE_HEADER } from '../contracts.js';
import type { AnswerMeta } from '../domain/inference.js';

/** The headers naming a call's record, route and budget warning. */
export function answerHeaders(meta: AnswerMeta): Record<string, string> {
  const h: Record<string, string> = { [GENERATION_ID_HEADER]: meta.generationId };
  if (meta.route) h[ROUTE_HEADER] = meta.route;
  if (meta.budgetWarning) h[BUDGET_WARNING_HEADER] = meta.budgetWarning;
  return h;
}
