/**
 * The checked-in proto/svc/v1/*.proto files are what the routes' schemas generate (issue 20 item 1),
 * and every one of them loads. `UPDATE_PROTOS=1` rewrites them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderProtos } from '../../helpers/grpc-protos.js';
import { protoRoot, svcV1 } from '../../../services/shared/grpc/proto.js';

test('proto files match the schemas and load', () => {
  const root = protoRoot();
  const rendered = renderProtos();
  assert.equal(rendered.size, 4);
  for (const [file, text] of rendered) {
    const path = join(root, file);
    if (process.env['UPDATE_PROTOS'] === '1') { mkdirSync(dirname(path), { recursive: true }); writeFileSync(path, text); }
    assert.equal(readFileSync(path, 'utf8'), text, `${file} is out of date: run with UPDATE_PROTOS=1`);
  }
  const pkg = svcV1();
  for (const svc of ['Memory', 'Guard', 'Wiki', 'Audit']) assert.ok(pkg[svc]?.service, `svc.v1.${svc} loads`);
  assert.ok(pkg['Audit']!.service['PublishTurnEvents']!.requestStream);
});
