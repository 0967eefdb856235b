/**
 * Live replay (spec "Audit and receipts": `POST /v1/audit/turns/{turn_id}/replay/live`, served by
 * the agent runtime; issue 5 item 6). Reads the recorded turn from audit
 * (`GET /v1/audit/turns/{id}/replay` with the caller's principal, so audit decides visibility), takes
 * every captured `prompt` of the runtime's `prompt_generated` events, sends each again to the current
 * model (no tool is executed: the recorded tool results are part of the recorded prompts) and compares
 * the answer with the recorded `model_response`. The replay is itself a turn: its own
 * prompt_generated / model_invoked / model_response events and artifacts are captured.
 */
import type { LiveReplayResponse, LiveReplayStep } from '../contracts.js';
import type { TurnIdentity } from './chat/turn.js';
import { artifactRef } from './digest.js';
import { runtimeError } from './errors.js';
import { classifyThrown } from './inference-errors.js';
import type { AuditPort, ModelPort, ModelRequest, RecordedEvent, TurnEvents } from './ports.js';

/** Most model calls one replay re-runs. */
export const MAX_REPLAY_STEPS = 16;

/** Words of a text, lower-cased, for comparison. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.slice(0, 4000) ?? [];
}

/**
 * Word-level similarity of two texts: 2·LCS / (|a| + |b|), 1 for two empty texts. Pure.
 * @example similarity('the cat sat', 'the cat sat down') // 0.857…
 */
export function similarity(a: string, b: string): number {
  const x = words(a);
  const y = words(b);
  if (x.length + y.length === 0) return 1;
  let prev = new Int32Array(y.length + 1);
  let cur = new Int32Array(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) cur[j] = x[i - 1] === y[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    [prev, cur] = [cur, prev];
  }
  return Math.round((2 * prev[y.length]! / (x.length + y.length)) * 1e4) / 1e4;
}

interface Recorded { model: string | null; content: string; tool_calls: Array<{ name: string; arguments: string }> }

function parseRecorded(text: string): Recorded {
  const j = JSON.parse(text) as { model?: string | null; content?: string; tool_calls?: Array<{ name: string; arguments: string }> };
  return { model: j.model ?? null, content: j.content ?? '', tool_calls: (j.tool_calls ?? []).map((c) => ({ name: c.name, arguments: c.arguments })) };
}

/** Runs live replays. */
export class LiveReplay {
  constructor(private readonly audit: AuditPort, private readonly model: ModelPort, private readonly events: TurnEvents) {}

  /**
   * Re-run turn `turnId` for the caller `who` (whose own turn is `who.turnId`).
   * @throws DomainError `turn_not_found` (absent or not the caller's), `replay_unavailable`
   *   (no captured prompt), `service_unavailable` when audit cannot be reached.
   */
  async run(turnId: string, who: TurnIdentity): Promise<LiveReplayResponse> {
    let recorded: RecordedEvent[] | null;
    try {
      recorded = await this.audit.replay(turnId, who.headers);
    } catch {
      throw runtimeError('service_unavailable', 'the audit service cannot be reached');
    }
    if (!recorded) throw runtimeError('turn_not_found', `no turn ${turnId}`);
    const prompts = recorded.filter((e) => e.payload_type === 'prompt_generated' && e.emitter_service === 'agent-runtime' && e.artifacts.some((a) => a.kind === 'prompt'));
    if (prompts.length === 0) throw runtimeError('replay_unavailable', `turn ${turnId} has no captured prompt to replay`);
    const responses = recorded.filter((e) => e.payload_type === 'model_response' && e.emitter_service === 'agent-runtime');
    const steps: LiveReplayStep[] = [];
    for (const [i, ev] of prompts.slice(0, MAX_REPLAY_STEPS).entries()) {
      const stepNo = Number((ev.payload as { step?: unknown })?.step ?? i + 1);
      const respEv = responses.find((r) => Number((r.payload as { step?: unknown })?.step) === stepNo) ?? responses[i];
      let rec: Recorded = { model: null, content: '', tool_calls: [] };
      const respArt = respEv?.artifacts.find((a) => a.kind === 'model_response');
      if (respArt) { try { rec = parseRecorded(await this.audit.artifact(respArt.url, who.headers)); } catch { /* compared as empty */ } }
      let body: ModelRequest;
      try {
        body = JSON.parse(await this.audit.artifact(ev.artifacts.find((a) => a.kind === 'prompt')!.url, who.headers)) as ModelRequest;
      } catch (err) {
        steps.push({ step: stepNo, recorded_event_id: ev.event_id, recorded: rec, live: null, identical: false, similarity: 0, error: { code: 'replay_unavailable', message: `prompt not readable: ${(err as Error).message}` } });
        continue;
      }
      const capture = (type: 'prompt_generated' | 'model_invoked' | 'model_response', payload: Record<string, unknown>, art?: { kind: string; body: string }): void => {
        if (!who.turnId) return;
        const p = art ? { ...payload, artifact: artifactRef(art.kind, art.body) } : payload;
        const id = this.events.emit(who.turnId, who.userId, type, { ...p, replay_of: { turn_id: turnId, event_id: ev.event_id } });
        if (art) void this.audit.putArtifact(who.turnId, id, art.kind, art.body);
      };
      const promptJson = JSON.stringify(body);
      capture('prompt_generated', { step: stepNo, model_role: body.model, message_count: body.messages?.length ?? 0 }, { kind: 'prompt', body: promptJson });
      capture('model_invoked', { step: stepNo, model: body.model, stream: true });
      try {
        const r = await this.model.stream(body, who.headers);
        const live = { model: r.model, content: r.content, tool_calls: r.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })) };
        capture('model_response', { step: stepNo, model: r.model, finish_reason: r.finishReason, tool_calls: live.tool_calls.map((c) => c.name), usage: r.usage },
          { kind: 'model_response', body: JSON.stringify({ ...live, finish_reason: r.finishReason, usage: r.usage }) });
        const sameTools = JSON.stringify(live.tool_calls) === JSON.stringify(rec.tool_calls);
        steps.push({ step: stepNo, recorded_event_id: ev.event_id, recorded: rec, live, identical: sameTools && live.content === rec.content, similarity: sameTools ? similarity(rec.content, live.content) : similarity(rec.content, live.content) * 0.5 });
      } catch (err) {
        const e = classifyThrown(err);
        steps.push({ step: stepNo, recorded_event_id: ev.event_id, recorded: rec, live: null, identical: false, similarity: 0, error: { code: e.code, message: e.message } });
      }
    }
    if (who.turnId) await this.events.deliver();
    const sim = steps.length ? Math.round((steps.reduce((a, s) => a + s.similarity, 0) / steps.length) * 1e4) / 1e4 : 0;
    return { turn_id: turnId, replay_turn_id: who.turnId, steps, identical: steps.every((s) => s.identical), similarity: sim };
  }
}
