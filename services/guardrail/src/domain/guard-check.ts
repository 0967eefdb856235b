/**
 * The guard check use case (spec "Guardrail"; "Turn events" guardrail_verdict; "Audit actions"
 * guardrail.input.blocked): run the scanners of the effective policy on the content, ask the model
 * judge when the policy says so (always, or when a layer was uncertain; domain/decision.ts has the
 * order and the decision rule of the layers, issue 16 item 3), then record
 * the verdict: every check with a turn emits a `guardrail_verdict` turn event (decision, scanners
 * that fired, rule ids, entity counts; never content), and a block writes a
 * `guardrail.input.blocked` (or `guardrail.output.blocked`) audit row. Both land before the answer.
 * The scanners run behind the `Scanner` port (in the service: worker threads with a time budget); a
 * scan that cannot finish answers `block` for that input, never `allow` (issue 11 item 6).
 */
import type { ContentSource, GuardInputRequest, GuardOutputRequest, GuardResult } from '../contracts.js';
import { applyEncoder, encoderAction, type EncoderClassifierPort } from '../classifier/encoder-layer.js';
import { applyJudge, decidedBy, judgeWanted, type JudgeRecord } from './decision.js';
import type { PolicyBook } from './policies.js';
import type { AuditLog, CheckOutcome, Classifier, DeidMappingStore, EventSink, Scanner, Warn } from './ports.js';
import { applyDeidLeak } from './deid-leak.js';
import { incompleteOutcome, inProcessScanner, ScanIncomplete } from './scanner.js';
import { actingUser, callerTenant, type Caller } from './scope.js';

/** Dependencies of `GuardCheck`. */
export interface GuardCheckDeps {
  policies: PolicyBook;
  classifier: Classifier;
  events: EventSink;
  audit: AuditLog;
  log: Warn;
  /** The service's pinned tenant (for principals without one). */
  tenantId: string;
  /** How long a check waits for its turn event and audit row to land, ms. */
  deliveryTimeoutMs: number;
  /** Where the scanners run (the service: a worker pool with a time budget); default in-process. */
  scanner?: Scanner;
  /** The imported encoder classifier (issue 16 item 1), when the service has one; it runs beside the scanners. */
  encoder?: EncoderClassifierPort;
  /** De-identification mappings: an output check puts the turn's placeholders back (issue 16 item 5). */
  mappings?: Pick<DeidMappingStore, 'valuesFor'>;
}

/** A check request of either direction. */
export type CheckRequest = GuardInputRequest | GuardOutputRequest;

/** The input and output checks. */
export class GuardCheck {
  constructor(private readonly d: GuardCheckDeps) {}

  /**
   * Check `body.content` in `direction`. @returns the result (decision, reason, scanner results,
   * rewritten content). @throws DomainError `tenant_mismatch`.
   */
  async check(c: Caller, direction: 'input' | 'output', body: CheckRequest): Promise<GuardResult> {
    const { d } = this;
    const p = c.principal;
    const tenantId = callerTenant(p, body.scope.tenant_id, d.tenantId);
    const agentId = body.scope.agent_id ?? null;
    const { policy } = await d.policies.effective(tenantId, agentId);
    const out = body as Partial<GuardOutputRequest>;
    const source: ContentSource = body.source ?? (direction === 'input' ? 'user' : 'model');
    // The encoder classifier reads the content while the scanners do (its answer waits below).
    const encAction = encoderAction(policy, direction, source);
    const encoding = d.encoder && encAction !== 'off' ? d.encoder.classify(body.content) : null;
    const judging = policy.model_classifier.mode === 'always' ? d.classifier.classify(body.content, direction) : null;
    let res: CheckOutcome;
    try {
      res = await (d.scanner ?? inProcessScanner).check(body.content, { direction, source, policy, input: out.input ?? null, systemPrompt: out.system_prompt ?? null });
    } catch (err) {
      // Issue 11 item 6: a check that cannot finish fails closed for this input (recorded like any block).
      if (!(err instanceof ScanIncomplete)) throw err;
      d.log.warn({ turn_id: c.turnId, cause: err.kind, content_length: body.content.length }, 'guard check did not finish; blocked');
      res = incompleteOutcome(err, direction, source);
    }
    if (encoding) applyEncoder(res, await encoding, policy, encAction);
    // Issue 16 item 3: the judge last, by the decision rule (domain/decision.ts); `always` started it with the scan.
    const judge: JudgeRecord = judgeWanted(res, policy) ? applyJudge(res, await (judging ?? d.classifier.classify(body.content, direction)), policy) : { status: 'absent', categories: [], latency_ms: null };
    const userId = actingUser(p, body.user_id);
    // Issue 16 item 5: values this turn de-identified must not come back in the answer.
    if (direction === 'output' && c.turnId && d.mappings) applyDeidLeak(res, body.content, await d.mappings.valuesFor(tenantId, c.turnId, userId), policy);
    const waits: Array<Promise<unknown>> = [];
    if (c.turnId) {
      d.events.emit(c.turnId, userId, 'guardrail_verdict', {
        check: direction, decision: res.result.decision, source, agent_id: agentId, scanners_fired: res.verdict.fired, blocked_by: res.verdict.blocked_by,
        rules: res.verdict.rules, entity_counts: res.verdict.entity_counts,
        risk: Object.fromEntries(res.result.scanner_results.map((s) => [s.scanner_name, s.risk_score])),
        decided_by: decidedBy(res), ...(judge.status !== 'absent' ? { judge } : {}),
      });
      waits.push(d.events.deliver(d.deliveryTimeoutMs));
    }
    if (res.result.decision === 'block') {
      const turnId = c.turnId;
      waits.push(d.audit.append({
        tenant_id: tenantId, detail_type: 'guardrail_verdict_v1', result: 'blocked',
        user_id: userId, action: direction === 'input' ? 'guardrail.input.blocked' : 'guardrail.output.blocked', resource_type: 'turn',
        resource_id: turnId, agent_id: agentId,
        detail: {
          check: direction, source, blocked_by: res.verdict.blocked_by, scanners_fired: res.verdict.fired, rules: res.verdict.rules,
          entity_counts: res.verdict.entity_counts, content_length: body.content.length,
        },
      }).then((ok) => { if (!ok) d.log.warn({ turn_id: turnId }, 'guardrail block not recorded in audit'); }));
    }
    await Promise.all(waits);
    return res.result;
  }
}
