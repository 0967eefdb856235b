/**
 * The schema-guided codec (services/shared/grpc/schema-codec.ts; issue 20 item 1): a JSON body goes
 * through its proto message and back unchanged (false, 0, "" and null kept apart from absent; free-form
 * JSON as text; key order of the schema), using the real proto files and proto-loader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { svcV1 } from '../../../services/shared/grpc/proto.js';
import { fromMessage, kindOf, protoMessage, toMessage, type SchemaNode } from '../../../services/shared/grpc/schema-codec.js';
import { StoreRequestSchema, StoreResultSchema } from '../../../services/memory/src/contracts.js';
import { AuditAppendRequestSchema } from '../../../services/audit/src/contracts.js';

const S = (x: unknown): SchemaNode => x as SchemaNode;

function roundTrip(service: string, rpc: string, side: 'request' | 'response', schema: SchemaNode, value: unknown): unknown {
  const def = svcV1()[service]!.service[rpc]!;
  const bytes = side === 'request' ? def.requestSerialize(toMessage(schema, value)) : def.responseSerialize(toMessage(schema, value));
  const msg = side === 'request' ? def.requestDeserialize(bytes) : def.responseDeserialize(bytes);
  return fromMessage(schema, msg);
}

test('a memory store request keeps false, empty strings and free-form messages', () => {
  const body = { content: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], scope: { agent_id: 'a1', session_id: null }, pinned: false, expires_at: null, source: 'chat' };
  assert.deepEqual(roundTrip('Memory', 'Store', 'request', S(StoreRequestSchema), body), body);
});

test('a memory store answer keeps nulls, zero scores and key order', () => {
  const memory = {
    id: 'm1', content: 'x', memory_type: 'user', scope: { tenant_id: 't', user_id: 'u', agent_id: null, session_id: null },
    pinned: false, expires_at: null, source: null, last_recalled_at: null, why_stored: '', created_at: 'c', updated_at: 'u', score: 0,
  };
  const answer = { results: [{ event: 'ADD', memory }], memories: [memory], extraction: 'content' };
  const back = roundTrip('Memory', 'Store', 'response', S(StoreResultSchema), answer);
  assert.equal(JSON.stringify(back), JSON.stringify(answer));
  const empty = { results: [], memories: [], extraction: 'deterministic' };
  assert.equal(JSON.stringify(roundTrip('Memory', 'Store', 'response', S(StoreResultSchema), empty)), JSON.stringify(empty));
});

test('audit detail and result travel as JSON text', () => {
  const body = { action: 'a', detail: { nested: { list: [1, 'two', null, { deep: true }] } }, result: null, agent_chain: ['x', 'y'] };
  const back = roundTrip('Audit', 'Append', 'request', S(AuditAppendRequestSchema), body) as Record<string, unknown>;
  assert.deepEqual(back['detail'], body.detail);
  assert.deepEqual(back['agent_chain'], body.agent_chain);
  assert.ok('result' in back && back['result'] === null, 'an optional null stays null');
  const absent = roundTrip('Audit', 'Append', 'request', S(AuditAppendRequestSchema), { action: 'a', user_id: null, resource_id: 'r' }) as Record<string, unknown>;
  assert.deepEqual(absent, { user_id: null, action: 'a', resource_id: 'r' });
  assert.equal(kindOf(S(AuditAppendRequestSchema).properties!['detail']!).k, 'json');
});

test('protoMessage marks optional and nullable fields optional and nests objects', () => {
  const text = protoMessage('T', { type: 'object', properties: { a: { type: 'string' }, b: { type: ['integer', 'null'] }, c: { type: 'object', properties: { d: { type: 'boolean' } }, required: ['d'] } }, required: ['a', 'b', 'c'] });
  assert.match(text, /^ {2}string a = 1;$/m);
  assert.match(text, /^ {2}optional int64 b = 2;$/m);
  assert.match(text, /message C \{\n {4}bool d = 1;\n {2}\}\n {2}C c = 3;/);
});
