/**
 * Receipts that read like history (issue 13 item 7), the pure rules: what a sealed turn was from
 * its events (kind, summary, method, route, outcome, HTTP status, start), the one-line summary,
 * and the LIKE pattern of a search with `%`, `_` and `\` escaped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyOf, kindOf, likePattern, oneLine, signalsOf, underPath } from '../../../services/audit/src/domain/receipt-history.js';
import type { LeafEvent } from '../../../services/audit/src/verifier/format.js';

let n = 0;
function ev(type: string, payload: unknown, opts: Partial<LeafEvent> = {}): LeafEvent {
  n++;
  return {
    turn_id: 't1', event_id: `e${String(n).padStart(4, '0')}`, tenant_id: 'acme', principal_id: 'u1', emitter_service: 'gateway', emitter_instance: null,
    occurred_at: new Date(Date.UTC(2030, 0, 1, 0, 0, n)).toISOString(), sequence_in_service: n, payload_type: type, payload_json: JSON.stringify(payload), ...opts,
  };
}
const started = (method: string, path: string): LeafEvent => ev('turn_started', { method, path, route: '/v1/*', correlation_id: 'c' });
const sealed = (status: number): LeafEvent => ev('turn_sealed', { status, duration_ms: 1 });
const prompt = (payload: Record<string, unknown>, opts: Partial<LeafEvent> = {}): LeafEvent => ev('prompt_generated', { step: 1, ...payload }, { emitter_service: 'agent-runtime', ...opts });

test('a chat turn: kind chat, the runtime\'s summary, method and route, completed with its HTTP status', () => {
  const events = [started('POST', '/v1/chat'), prompt({ summary: 'Plan the  quarterly\nreview' }), ev('model_invoked', {}, { emitter_service: 'agent-runtime' }), sealed(200)];
  const h = historyOf('u1', events, 'completed');
  assert.deepEqual(h, {
    kind: 'chat', summary: 'Plan the quarterly review', method: 'POST', route: '/v1/chat', outcome: 'completed', http_status: 200, started_at: events[0]!.occurred_at,
  });
  assert.equal(historyOf('u1', [started('POST', '/v1/chat/agui/stream'), sealed(200)], 'completed').kind, 'chat', 'AG-UI');
  assert.equal(historyOf('u1', [started('POST', '/v1/chat/completions'), sealed(200)], 'completed').kind, 'chat');
});

test('the summary comes only from the owner\'s runtime events, never another emitter or principal, never a replay', () => {
  assert.equal(signalsOf('u1', [prompt({ summary: 'not mine' }, { principal_id: 'u2' })]).chatSummary, null);
  assert.equal(signalsOf('u1', [prompt({ summary: 'forged' }, { emitter_service: 'gateway' })]).chatSummary, null);
  assert.equal(signalsOf('u1', [prompt({ summary: 'replayed', replay_of: { turn_id: 'x' } })]).chatSummary, null);
  assert.equal(signalsOf('u1', [prompt({ summary: 42 })]).chatSummary, null);
  assert.equal(signalsOf('u1', [prompt({ summary: 'first' }), prompt({ step: 2, summary: 'second' })]).chatSummary, 'first');
});

test('a blocked chat: no summary, outcome blocked', () => {
  const h = historyOf('u1', [started('POST', '/v1/chat'), ev('guardrail_verdict', { check: 'input', decision: 'block' }, { emitter_service: 'guardrail' }), sealed(200)], 'completed');
  assert.equal(h.kind, 'chat');
  assert.equal(h.summary, null);
  assert.equal(h.outcome, 'blocked');
  const toolBlock = ev('guardrail_verdict', { check: 'output', decision: 'block', source: 'tool' }, { emitter_service: 'guardrail' });
  assert.equal(historyOf('u1', [started('POST', '/v1/chat'), toolBlock, sealed(200)], 'completed').outcome, 'completed', 'a blocked tool result does not block the turn');
  const answerBlock = ev('guardrail_verdict', { check: 'output', decision: 'block', source: 'model' }, { emitter_service: 'guardrail' });
  assert.equal(historyOf('u1', [started('POST', '/v1/chat'), answerBlock, sealed(200)], 'completed').outcome, 'blocked');
});

test('admin actions, sandbox tool runs, tool-only turns, other requests', () => {
  assert.equal(historyOf('u1', [started('PUT', '/v1/admin/inference/roles/default'), sealed(200)], 'completed').kind, 'admin');
  assert.equal(historyOf('u1', [started('GET', '/v1/admin'), sealed(200)], 'completed').kind, 'admin');
  assert.equal(historyOf('u1', [started('GET', '/v1/administer'), sealed(404)], 'completed').kind, 'other');
  const sb = historyOf('u1', [started('POST', '/v1/sandbox/execute'), sealed(400)], 'completed');
  assert.deepEqual([sb.kind, sb.summary, sb.http_status], ['tool_run', null, 400]);
  assert.equal(historyOf('u1', [started('GET', '/v1/sandbox/sessions'), sealed(200)], 'completed').kind, 'other');
  const tools = historyOf('u1', [started('POST', '/v1/user/approvals/a1/approve'), ev('tool_called', { tool: 'bash' }), ev('tool_called', { tool: 'execute_code' }),
    ev('tool_called', { tool: 'bash' }), ev('tool_returned', {}), sealed(200)], 'completed');
  assert.deepEqual([tools.kind, tools.summary], ['tool_run', 'bash, execute_code']);
  assert.equal(historyOf('u1', [ev('tool_called', { tool: 'web_search' }, { emitter_service: 'agent-runtime' })], 'failed').kind, 'tool_run', 'no route, tools only');
  assert.equal(historyOf('u1', [prompt({}), ev('tool_called', { tool: 'bash' })], 'completed').kind, 'chat', 'no route, the model was prompted');
  const other = historyOf('u1', [started('GET', '/v1/receipts'), sealed(200)], 'completed');
  assert.deepEqual([other.kind, other.summary, other.method, other.route], ['other', null, 'GET', '/v1/receipts']);
  assert.equal(historyOf('u1', [started('POST', '/v1/conversations/c1/runs'), prompt({ summary: 'hi' }), sealed(200)], 'completed').kind, 'chat');
  assert.equal(historyOf('u1', [started('POST', '/v1/sessions/s1/title'), prompt({}), sealed(200)], 'completed').kind, 'other', 'a model call without a chat summary');
  assert.equal(historyOf('u1', [], 'failed').kind, 'other');
});

test('outcome: failed envelope, status of the terminal event, earliest event', () => {
  const late = ev('turn_failed', { status: 502 });
  const early = ev('turn_started', { method: 'GET', path: '/v1/x' }, { occurred_at: '2029-01-01T00:00:00.000Z' });
  const h = historyOf('u1', [late, early], 'failed');
  assert.deepEqual([h.outcome, h.http_status, h.started_at], ['failed', 502, '2029-01-01T00:00:00.000Z']);
  assert.equal(historyOf('u1', [ev('turn_failed', { code: 'inference_error' })], 'failed').http_status, null, 'the runtime\'s turn_failed has no status');
  assert.equal(historyOf('u1', [ev('turn_sealed', { status: 'x' })], 'completed').http_status, null);
});

test('kindOf and underPath', () => {
  assert.equal(underPath('/v1/chat', '/v1/chat'), true);
  assert.equal(underPath('/v1/chat/stream', '/v1/chat'), true);
  assert.equal(underPath('/v1/chatty', '/v1/chat'), false);
  assert.equal(kindOf({ method: 'POST', route: '/v1/x', chatSummary: null, prompted: true, tools: ['bash'] }), 'other');
});

test('oneLine: control characters and whitespace flattened, cut with an ellipsis, null when empty', () => {
  assert.equal(oneLine('  a\tb\u0000c\n\nd  '), 'a b c d');
  assert.equal(oneLine('   '), null);
  assert.equal(oneLine(undefined), null);
  const long = 'é'.repeat(200);
  const cut = oneLine(long, 120)!;
  assert.equal([...cut].length, 120);
  assert.ok(cut.endsWith('…'));
});

test('likePattern: a substring pattern with %, _ and \\ escaped; blank is no search', () => {
  assert.equal(likePattern('budget'), '%budget%');
  assert.equal(likePattern(' 100%_off\\x '), '%100\\%\\_off\\\\x%');
  assert.equal(likePattern('   '), null);
  assert.equal(likePattern(undefined), null);
});
