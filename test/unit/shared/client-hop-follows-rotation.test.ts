/**
 * Issue 19 item 3 (gap: the gateway -> auth hop keys followed a principal rotation only after a
 * restart): the supervisor rotates `cfg.principalKeys` in place in two steps (new key appended to
 * verify, then moved first to sign; main/supervisor/keys.ts). The gateway's hop signer and the
 * auth service's hop verifier hold that same array and must follow both steps live.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientHopSigner, ClientHopVerifier } from '../../../services/shared/identity/client-hop.js';

test('hop signer and verifier follow an in-place principal-key rotation without a restart', () => {
  const keys = ['old-principal-key-0123456789abcdefghijkl'];
  const fresh = 'new-principal-key-0123456789abcdefghijkl';
  const signer = new ClientHopSigner(keys);
  const verifier = new ClientHopVerifier(keys);
  const before = signer.stamp('10.1.2.3')!;
  assert.equal(verifier.verify(before), '10.1.2.3');

  // Phase 1: the new key verifies everywhere (appended); stamps are still signed with the old one.
  keys.splice(0, keys.length, 'old-principal-key-0123456789abcdefghijkl', fresh);
  const onlyNew = new ClientHopVerifier([fresh]);
  assert.equal(verifier.verify(new ClientHopSigner([fresh]).stamp('10.9.9.9')!), '10.9.9.9', 'the live verifier accepts the new key after phase 1');

  // Phase 2: the new key signs. The live signer must sign with it (a cached old stamp is dropped).
  keys.splice(0, keys.length, fresh, 'old-principal-key-0123456789abcdefghijkl');
  const after = signer.stamp('10.1.2.3')!;
  assert.notEqual(after, before);
  assert.equal(onlyNew.verify(after), '10.1.2.3', 'a service that knows only the new key (restarted) accepts the gateway stamp');
  assert.equal(verifier.verify(after), '10.1.2.3');
  assert.equal(new ClientHopVerifier(['old-principal-key-0123456789abcdefghijkl']).verify(after), null, 'not signed with the old key any more');
  // Retired keys keep verifying old stamps.
  assert.equal(verifier.verify(before), '10.1.2.3');
});
