/**
 * Client of the guardrail service (spec "Guardrail"): `POST /v1/guard/input {content, scope}` and
 * `POST /v1/guard/output {content, scope, input?}`, both answering the spec's check result
 * `{decision, reason, scanner_results[], rewritten_content}`. The caller's stamped headers travel
 * along so the guardrail emits `guardrail_verdict` under the turn.
 *
 * Unreachable, 404 (not built) or 5xx is reported as `unavailable`; the chat engine then fails
 * open or closed per AGENT_RUNTIME_GUARDRAIL_FAIL_MODE (docs/decisions-runtime.md).
 */
import type { GuardOutcome, GuardPort, GuardScope, ScannerResult } from '../domain/ports.js';
import { callJson } from './http.js';

/** Guardrail client bound to a base URL. */
export class GuardrailClient implements GuardPort {
  constructor(private readonly baseUrl: string, private readonly timeoutMs: number) {}

  /** Check user input. Never throws: failures come back as `{available: false}`. */
  input(content: string, scope: GuardScope, headers: Record<string, string>, signal?: AbortSignal): Promise<GuardOutcome> {
    return this.check('/v1/guard/input', { content, scope }, headers, signal);
  }

  /** Check model output (with the input it answers). Never throws. */
  output(content: string, scope: GuardScope, input: string, headers: Record<string, string>, signal?: AbortSignal): Promise<GuardOutcome> {
    return this.check('/v1/guard/output', { content, scope, input }, headers, signal);
  }

  private async check(path: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<GuardOutcome> {
    try {
      const r = await callJson(this.baseUrl + path, { body, headers, timeoutMs: this.timeoutMs, ...(signal ? { signal } : {}) });
      const b = r.body as Partial<{ decision: string; reason: string; scanner_results: ScannerResult[]; rewritten_content: string | null }> | null;
      if (r.status !== 200 || !b || typeof b.decision !== 'string') return { available: false, why: `guardrail answered HTTP ${r.status}` };
      return {
        available: true, decision: b.decision, reason: typeof b.reason === 'string' ? b.reason : '',
        scanner_results: Array.isArray(b.scanner_results) ? b.scanner_results : [],
        rewritten_content: typeof b.rewritten_content === 'string' ? b.rewritten_content : null,
      };
    } catch (err) {
      return { available: false, why: `guardrail unreachable: ${(err as Error).message}` };
    }
  }
}
