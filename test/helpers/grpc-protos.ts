/**
 * Renders the checked-in `.proto` files of the transport split (issue 20 item 1) from the routes'
 * TypeBox schemas (services/gateway/src/domain/grpc-routes.ts) and the turn-event stream's schemas,
 * so the files cannot drift from the JSON bodies: test/unit/grpc/protos-in-sync.test.ts compares,
 * and `UPDATE_PROTOS=1` on that test rewrites them.
 */
import { GRPC_ROUTES } from '../../services/gateway/src/domain/grpc-routes.js';
import { mergeSchemas, protoMessage } from '../../services/shared/grpc/schema-codec.js';
import { INGEST_RESULT_SCHEMA, TURN_EVENT_ANSWER_SCHEMA, TURN_EVENT_BATCH_SCHEMA } from '../../services/shared/events/turn-event-schema.js';

/** File name (under proto/) -> text. */
export function renderProtos(): Map<string, string> {
  const files = new Map<string, { services: Map<string, string[]>; messages: Map<string, string> }>();
  const fileOf = (name: string) => {
    let f = files.get(name);
    if (!f) { f = { services: new Map(), messages: new Map() }; files.set(name, f); }
    return f;
  };
  for (const r of GRPC_ROUTES) {
    const f = fileOf(r.file);
    const req = mergeSchemas(r.params, r.querystring, r.body);
    if (!f.messages.has(r.requestMessage)) f.messages.set(r.requestMessage, protoMessage(r.requestMessage, req));
    if (!f.messages.has(r.responseMessage)) f.messages.set(r.responseMessage, protoMessage(r.responseMessage, r.response));
    const rpcs = f.services.get(r.protoService) ?? [];
    rpcs.push(`  // ${r.label}\n  rpc ${r.rpc}(${r.requestMessage}) returns (${r.responseMessage});`);
    f.services.set(r.protoService, rpcs);
  }
  const audit = fileOf('svc/v1/audit.proto');
  audit.messages.set('TurnEventBatch', protoMessage('TurnEventBatch', TURN_EVENT_BATCH_SCHEMA));
  audit.messages.set('TurnEventAnswer', protoMessage('TurnEventAnswer', TURN_EVENT_ANSWER_SCHEMA(INGEST_RESULT_SCHEMA)));
  audit.services.get('Audit')!.push('  // Turn events (spec "Turn events (gRPC publish to audit)"): one answer per batch, in order;\n'
    + '  // each batch is what the outbox POSTs to /v1/turns/events, each answer what that route answers.\n'
    + '  rpc PublishTurnEvents(stream TurnEventBatch) returns (stream TurnEventAnswer);');
  const out = new Map<string, string>();
  for (const [name, f] of files) {
    const parts = [
      '// GENERATED from the routes\' TypeBox schemas by test/helpers/grpc-protos.ts (issue 20 item 1);',
      '// regenerate with UPDATE_PROTOS=1 on test/unit/grpc/protos-in-sync.test.ts. Field names are the',
      '// JSON names; `optional` marks fields that may be absent or null; `// JSON text` fields carry free-form JSON.',
      'syntax = "proto3";',
      '',
      'package svc.v1;',
      '',
      ...[...f.services].map(([svc, rpcs]) => `service ${svc} {\n${rpcs.join('\n')}\n}\n`),
      ...[...f.messages.values()].map((m) => `${m}\n`),
    ];
    out.set(name, parts.join('\n'));
  }
  return out;
}
