/** Pure parts of the adapters: Responses translation both ways, SSE framing, local prompt rendering. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromResponsesAnswer, toResponsesRequest } from '../../../services/inference-router/src/adapters/responses.js';
import { splitSse } from '../../../services/inference-router/src/adapters/http.js';
import { renderPrompt } from '../../../services/inference-router/src/adapters/local.js';
import { localDeterministic } from '../../../services/inference-router/src/domain/inference.js';
import { toUsage } from '../../../services/inference-router/src/adapters/chat-completions.js';

test('chat requests become Responses requests', () => {
  const out = toResponsesRequest({
    model: 'default', max_completion_tokens: 9, temperature: 0.2, tool_choice: { type: 'function', function: { name: 'f' } },
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    messages: [
      { role: 'system', content: 'sys' }, { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:x' } }] },
      { role: 'assistant', content: 'calling', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'result' },
    ],
  }, 'gpt-x', true);
  assert.equal(out.model, 'gpt-x');
  assert.equal(out.instructions, 'sys');
  assert.equal(out.max_output_tokens, 9);
  assert.deepEqual(out.tool_choice, { type: 'function', name: 'f' });
  assert.deepEqual(out.tools, [{ type: 'function', name: 'f', description: undefined, parameters: { type: 'object' } }]);
  assert.deepEqual(out.input, [
    { role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'data:x' }] },
    { role: 'assistant', content: 'calling' },
    { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c1', output: 'result' },
  ]);
});

test('Responses answers become chat completions with tool calls and usage', () => {
  const { body, usage } = fromResponsesAnswer({
    id: 'resp_1', model: 'gpt-x', usage: { input_tokens: 3, output_tokens: 4 },
    output: [{ type: 'message', content: [{ type: 'output_text', text: 'hi ' }, { type: 'output_text', text: 'there' }] }, { type: 'function_call', call_id: 'c9', name: 'g', arguments: '{"a":1}' }],
  }, 'fallback');
  assert.deepEqual(usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  const choice = (body.choices as Array<{ message: { content: string; tool_calls: unknown[] }; finish_reason: string }>)[0]!;
  assert.equal(choice.message.content, 'hi there');
  assert.deepEqual(choice.message.tool_calls, [{ id: 'c9', type: 'function', function: { name: 'g', arguments: '{"a":1}' } }]);
  assert.equal(choice.finish_reason, 'tool_calls');
});

test('SSE framing keeps incomplete events for the next chunk and handles CRLF', () => {
  const a = splitSse('data: {"a":1}\n\ndata: {"b"');
  assert.deepEqual(a.events.map((e) => e.data), ['{"a":1}']);
  const b = splitSse(`${a.rest}:2}\r\n\r\nevent: x\r\ndata: y\r\n\r\n`);
  assert.deepEqual(b.events.map((e) => [e.event, e.data]), [[null, '{"b":2}'], ['x', 'y']]);
  assert.equal(b.rest, '');
});

test('local prompts render message texts; greedy or seeded calls are deterministic', () => {
  assert.equal(renderPrompt([{ role: 'system', content: 'S' }, { role: 'user', content: [{ type: 'text', text: 'U' }] }, { role: 'tool', content: 'T' }]), 'S\n\nU');
  assert.equal(localDeterministic({ model: 'm', messages: [] }), true);
  assert.equal(localDeterministic({ model: 'm', messages: [], temperature: 0.7 }), false);
  assert.equal(localDeterministic({ model: 'm', messages: [], temperature: 0.7, seed: 1 }), true);
  assert.equal(toUsage(null), null);
});
