/**
 * Classification of inference failures into the spec's codes (spec "Errors": inference errors use
 * `{error, code}` with `provider_key_missing`, `role_not_configured`, `role_no_backend`,
 * `model_unknown`, `backend_unavailable`; with no reachable provider the chat stream emits `error`
 * with `backend_unavailable`, "taken from the router's own code when present, otherwise derived from
 * the error text"). Pure. The HTTP status of each code is in contracts.ts (`AGENT_RUNTIME_ERRORS`).
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { InferenceErrorCode } from '../contracts.js';

/** Codes the router may answer with (plus `budget_exceeded` from its budget check). */
export const ROUTER_CODES: ReadonlySet<string> = new Set<InferenceErrorCode>([
  'provider_key_missing', 'role_not_configured', 'role_no_backend', 'model_unknown', 'backend_unavailable', 'budget_exceeded',
]);

/**
 * A failed model call, with the code clients switch on. A `DomainError`, so a route that lets it
 * through answers the code's status from the runtime's error table.
 */
export class InferenceError extends DomainError<InferenceErrorCode> {
  /** @param status the HTTP status the router (or provider) answered, when it answered. */
  constructor(code: InferenceErrorCode, message: string, readonly status: number | null = null) {
    super(code, message);
    this.name = 'InferenceError';
  }
}

const RULES: Array<[RegExp, InferenceErrorCode]> = [
  [/budget|quota/i, 'budget_exceeded'],
  [/api[ _-]?key|unauthori[sz]ed|\b401\b|credential/i, 'provider_key_missing'],
  [/\brole\b.*\b(not configured|unknown|unmapped|no such)\b|\bno (model )?role\b/i, 'role_not_configured'],
  [/\bno backend\b|\bno provider\b/i, 'role_no_backend'],
  [/\bmodel\b.*\b(not found|unknown|does not exist|no such)\b/i, 'model_unknown'],
  [/ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EPIPE|UND_ERR|timed? ?out|unavailable|unreachable|connect|socket|fetch failed|other side closed|terminated|\b50[234]\b/i, 'backend_unavailable'],
];

/** Derive a code from free error text; null when nothing matches. */
export function deriveCode(text: string): InferenceErrorCode | null {
  for (const [re, code] of RULES) if (re.test(text)) return code;
  return null;
}

/**
 * Classify an HTTP error answer of the router (or of an OpenAI-compatible provider).
 * Router bodies are `{error: string, code}`; OpenAI bodies are `{error: {message, code, type}}`.
 */
export function classifyHttpError(status: number, body: unknown): InferenceError {
  let message = `inference failed with HTTP ${status}`;
  let code: InferenceErrorCode | null = null;
  if (body && typeof body === 'object') {
    const b = body as { error?: unknown; code?: unknown; message?: unknown };
    if (typeof b.error === 'string') message = b.error;
    else if (b.error && typeof b.error === 'object') {
      const e = b.error as { message?: unknown; code?: unknown; type?: unknown };
      if (typeof e.message === 'string') message = e.message;
      if (typeof e.code === 'string' && ROUTER_CODES.has(e.code)) code = e.code as InferenceErrorCode;
    } else if (typeof b.message === 'string') message = b.message;
    if (typeof b.code === 'string' && ROUTER_CODES.has(b.code)) code = b.code as InferenceErrorCode;
  }
  code ??= deriveCode(message) ?? (status >= 500 || status === 408 ? 'backend_unavailable' : status === 429 ? 'budget_exceeded' : 'inference_error');
  return new InferenceError(code, message, status);
}

/** Classify a thrown transport error (connection refused, timeout, reset). */
export function classifyThrown(err: unknown): InferenceError {
  if (err instanceof InferenceError) return err;
  const e = err as { message?: string; code?: string; name?: string; cause?: { code?: string; message?: string } };
  const text = [e?.name, e?.code, e?.message, e?.cause?.code, e?.cause?.message].filter(Boolean).join(' ');
  return new InferenceError(deriveCode(text) ?? 'backend_unavailable', `inference backend unreachable: ${e?.message ?? String(err)}`);
}
