/**
 * THE audit client's binary upload (issue 12 item 6: a sandbox figure stored as a turn artifact):
 * `putArtifact(..., contentType, 'base64')` sends `content_base64` (never `content`) with the
 * sha256 of the DECODED bytes and the given content type, against a recording HTTP server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuditClient } from '../../../services/audit/src/client.js';

test('putArtifact with base64: content_base64, the digest of the bytes, the content type', async (t) => {
  const bodies: Array<Record<string, unknown>> = [];
  const srv = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString('utf8'); });
    req.on('end', () => { bodies.push(JSON.parse(raw) as Record<string, unknown>); res.writeHead(201, { 'content-type': 'application/json' }).end('{}'); });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => srv.close(() => r())));
  const c = new AuditClient({ baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, service: 'agent-runtime', tenantId: 'acme', principalKeys: ['k'.repeat(40)] });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);
  assert.equal(await c.putArtifact('T1', 'e1', 'file-1-figure.png', png.toString('base64'), 'image/png', 'base64'), true);
  assert.deepEqual(bodies[0], {
    turn_id: 'T1', event_id: 'e1', kind: 'file-1-figure.png', content_type: 'image/png', content_base64: png.toString('base64'),
    sha256: createHash('sha256').update(png).digest('hex'),
  });
  assert.notEqual(bodies[0]!.sha256, createHash('sha256').update(png.toString('base64')).digest('hex'), 'the digest is of the bytes, not of their base64');
});
