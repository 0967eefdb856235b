/**
 * Client of the guardrail service (spec "Guardrail"): `POST /v1/guard/input {content, scope}` (and
 * `{content, scope, source}` for retrieved chunks and tool results, issue 16 item 4) and
 * `POST /v1/guard/output {content, scope, input?}`, both answering the spec's check result
 * `{decision, reason, scanner_results[], rewritten_content}`. The caller's stamped headers travel
 * along so the guardrail emits `guardrail_verdict` under the turn.
 *
 * Every failure is reported as `unavailable` with why. It is `unreachable` only when no connection
 * could be made (refused, unknown host, no route) or the address serves no guardrail (404): the
 * one case AGENT_RUNTIME_GUARDRAIL_FAIL_MODE `open` may let through. A check that was sent but did not answer a verdict (timeout, reset, any
 * non-200, a body without `decision`) could not finish, and the chat engine refuses the turn
 * (issue 11 item 6; docs/decisions-runtime.md).
 */
import type { GuardOutcome, GuardPort, GuardScope, ScannerResult } from '../domain/ports.js';
import { callJson } from './http.js';

/** Socket and DNS errors raised before a request could be sent: nothing is listening there. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * Whether `err` (from `callJson`) means the guardrail could not be connected to at all. Timeouts,
 * resets and aborts are not: the guardrail may have been busy with (or stalled by) the content.
 */
export function isUnreachable(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return true;
  }
  return false;
}

/** Guardrail client bound to a base URL. */
export class GuardrailClient implements GuardPort {
  constructor(private readonly baseUrl: string, private readonly timeoutMs: number) {}

  /** Check user input. Never throws: failures come back as `{available: false}`. */
  input(content: string, scope: GuardScope, headers: Record<string, string>, signal?: AbortSignal): Promise<GuardOutcome> {
    return this.check('/v1/guard/input', { content, scope }, headers, signal);
  }

  /** Check model output (with the input it answers, and the system prompt it must not disclose). Never throws. */
  output(content: string, scope: GuardScope, input: string, headers: Record<string, string>, signal?: AbortSignal, opts?: { systemPrompt?: string | null }): Promise<GuardOutcome> {
    return this.check('/v1/guard/output', { content, scope, input, ...(opts?.systemPrompt ? { system_prompt: opts.systemPrompt } : {}) }, headers, signal);
  }

  /** Check a retrieved chunk, memory or tool result before the model sees it (`source` says which). Never throws. */
  content(content: string, source: 'document' | 'tool', scope: GuardScope, headers: Record<string, string>, signal?: AbortSignal): Promise<GuardOutcome> {
    return this.check('/v1/guard/input', { content, scope, source }, headers, signal);
  }

  private async check(path: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<GuardOutcome> {
    try {
      const r = await callJson(this.baseUrl + path, { body, headers, timeoutMs: this.timeoutMs, ...(signal ? { signal } : {}) });
      const b = r.body as Partial<{ decision: string; reason: string; scanner_results: ScannerResult[]; rewritten_content: string | null }> | null;
      // 404: no guardrail route at this address (not deployed there); the route never answers 404 for content.
      if (r.status === 404) return { available: false, why: 'no guardrail at this address (HTTP 404)', unreachable: true };
      if (r.status !== 200 || !b || typeof b.decision !== 'string') return { available: false, why: r.status === 200 ? 'the guardrail answered without a verdict' : `the guardrail answered HTTP ${r.status}` };
      return {
        available: true, decision: b.decision, reason: typeof b.reason === 'string' ? b.reason : '',
        scanner_results: Array.isArray(b.scanner_results) ? b.scanner_results : [],
        rewritten_content: typeof b.rewritten_content === 'string' ? b.rewritten_content : null,
      };
    } catch (err) {
      if (isUnreachable(err)) return { available: false, why: `guardrail unreachable: ${(err as Error).message}`, unreachable: true };
      const e = err as { name?: string; code?: string };
      const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
      return { available: false, why: timedOut ? `no verdict within ${this.timeoutMs} ms` : 'the connection ended before a verdict' };
    }
  }
}
