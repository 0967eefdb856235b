/**
 * The shell trusts the gateway's own LAN certificate (main/app/security.ts `gatewayCertificateVerdict`;
 * issue 14 item 7): exactly the pinned fingerprint, on the gateway's host, over HTTPS; anything else
 * is left to Chromium (-3).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatewayCertificateVerdict } from '../../../main/app/security.js';

const FP = 'ab'.repeat(32);

test('the pinned certificate on the gateway host is trusted', () => {
  assert.equal(gatewayCertificateVerdict('https://127.0.0.1:8080', FP, '127.0.0.1', FP), 0);
  assert.equal(gatewayCertificateVerdict('https://[::1]:8080', FP, '::1', FP), 0);
});

test('another certificate, another host, no pin or plain HTTP: Chromium decides', () => {
  assert.equal(gatewayCertificateVerdict('https://127.0.0.1:8080', FP, '127.0.0.1', 'cd'.repeat(32)), -3);
  assert.equal(gatewayCertificateVerdict('https://127.0.0.1:8080', FP, 'github.com', FP), -3);
  assert.equal(gatewayCertificateVerdict('https://127.0.0.1:8080', null, '127.0.0.1', FP), -3);
  assert.equal(gatewayCertificateVerdict('https://127.0.0.1:8080', FP, '127.0.0.1', null), -3);
  assert.equal(gatewayCertificateVerdict('http://127.0.0.1:8080', FP, '127.0.0.1', FP), -3);
  assert.equal(gatewayCertificateVerdict('not a url', FP, '127.0.0.1', FP), -3);
});
