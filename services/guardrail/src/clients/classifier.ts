/**
 * The model judge through the inference router's `guardrail` role (issue 16 item 3): `POST
 * {router}/v1/chat/completions`, model "guardrail", signed service principal, temperature 0, at most
 * JUDGE_MAX_TOKENS tokens, within `timeoutMs` (one deadline for the whole call, headers and body).
 * The prompt and the strict answer format are domain/judge.ts: the judge reads a bounded excerpt,
 * so padding cannot slow it.
 *
 * Outcomes: no judge configured (the router answers `role_not_configured` / `role_no_backend` /
 * 404, or cannot be reached) -> null (the layer is absent, remembered for `negativeTtlMs` so checks
 * stay fast); a judge that was asked and did not answer in time, answered an error, or answered
 * outside the format -> a verdict with `failure` (the policy decides: fail open or closed); else the
 * verdict with its categories and latency.
 */
import { request } from 'undici';
import type { Classifier, ClassifierVerdict } from '../domain/ports.js';
import { failedVerdict, judgeExcerpt, judgePrompt, JUDGE_MAX_TOKENS, parseJudgeAnswer, verdictOf } from '../domain/judge.js';

export type { ClassifierVerdict };

/** Options of `RouterClassifier`. */
export interface RouterClassifierOptions {
  /** Base URL of the inference router. */
  routerUrl: string;
  /** `X-Svc-Principal` of `service:guardrail` (the cached `serviceStamp`). */
  stamp: () => string;
  /** Deadline of one judge call, ms (SVC_GUARDRAIL_CLASSIFIER_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long an absent judge is not asked again, ms. */
  negativeTtlMs: number;
}

/** Router error codes that mean "no judge here" rather than "the judge failed". */
const ABSENT_CODES: ReadonlySet<string> = new Set(['role_not_configured', 'role_no_backend', 'model_unknown', 'provider_key_missing']);

/** The router-backed judge with a negative cache for an absent role. */
export class RouterClassifier implements Classifier {
  private unavailableUntil = 0;

  constructor(private readonly opts: RouterClassifierOptions) {}

  /** Judge `content` (see module doc). Never throws. */
  async classify(content: string, direction: 'input' | 'output'): Promise<ClassifierVerdict | null> {
    if (Date.now() < this.unavailableUntil) return null;
    const t0 = performance.now();
    const ms = (): number => Math.round((performance.now() - t0) * 10) / 10;
    const abort = AbortSignal.timeout(this.opts.timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await request(`${this.opts.routerUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-principal': this.opts.stamp() },
        body: JSON.stringify({
          model: 'guardrail', temperature: 0, max_tokens: JUDGE_MAX_TOKENS, stream: false,
          messages: [{ role: 'user', content: judgePrompt(judgeExcerpt(content), direction) }],
        }),
        signal: abort,
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (abort.aborted || /timeout/i.test((err as { code?: string; name?: string }).code ?? (err as Error).name ?? '')) return failedVerdict('timeout', ms());
      // Nothing listening: no judge on this machine.
      this.unavailableUntil = Date.now() + this.opts.negativeTtlMs;
      return null;
    }
    if (status !== 200) {
      let code = '';
      try { code = (JSON.parse(text) as { code?: string }).code ?? ''; } catch { /* not JSON */ }
      if (status === 404 || ABSENT_CODES.has(code)) {
        this.unavailableUntil = Date.now() + this.opts.negativeTtlMs;
        return null;
      }
      return failedVerdict('error', ms());
    }
    let answer = '';
    try {
      answer = (JSON.parse(text) as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message?.content ?? '';
    } catch { return failedVerdict('unparseable', ms()); }
    const parsed = parseJudgeAnswer(answer);
    return parsed ? verdictOf(parsed, ms()) : failedVerdict('unparseable', ms());
  }
}
