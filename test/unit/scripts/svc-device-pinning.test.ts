/**
 * `scripts/svc-device` certificate pinning (issue 14 item 7): against a self-signed HTTPS server, the
 * pinned fingerprint from the enrollment URL is the only trust: a matching pin connects, a different
 * pin is refused before the request is sent (`certificate_mismatch`), no pin means ordinary CA
 * verification (which a self-signed certificate fails), and `insecure` accepts anything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { certificateFingerprint, dispatcherFor, requestJson, TransportError } from '../../../scripts/device/transport.js';

test('pinned fingerprint: match connects, mismatch and unpinned self-signed are refused', async (t) => {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keySize: 2048, algorithm: 'sha256' });
  let requests = 0;
  const server = createServer({ cert: pems.cert, key: pems.private }, (_req, res) => {
    requests += 1;
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/dirauth/pair/refresh`;
  const fp = certificateFingerprint(new X509Certificate(pems.cert).raw);
  assert.match(fp, /^[0-9a-f]{64}$/);

  const ok = await requestJson(dispatcherFor({ fingerprint: fp }), url, { method: 'POST', json: {} });
  assert.deepEqual(ok, { status: 200, body: { ok: true } });
  assert.equal(requests, 1);

  const wrong = 'f'.repeat(64);
  await assert.rejects(requestJson(dispatcherFor({ fingerprint: wrong }), url, { method: 'POST', json: {} }),
    (e: unknown) => e instanceof TransportError && e.code === 'certificate_mismatch' && e.message.includes(fp));
  await assert.rejects(requestJson(dispatcherFor({ fingerprint: '' }), url, { method: 'GET' }),
    (e: unknown) => e instanceof TransportError && e.code === 'network_error');
  assert.equal(requests, 1, 'a refused certificate never sees the request');

  const any = await requestJson(dispatcherFor({ fingerprint: '', insecure: true }), url, { method: 'GET' });
  assert.equal(any.status, 200);
});
