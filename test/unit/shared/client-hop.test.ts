/** The gateway's signed hop stamp (issue 11 item 2): who may name the client address. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CLIENT_HOP_LIFETIME_SECONDS, ClientHopSigner, ClientHopVerifier, clientAddress, clientHopKeys } from '../../../services/shared/identity/client-hop.js';
import { servicePrincipal, signStamp, verifyStamp } from '../../../services/shared/identity/principal.js';

const KEYS = ['k'.repeat(40), 'old'.repeat(14)];

describe('client hop stamp', () => {
  it('round-trips the client address and is cached per address', () => {
    const signer = new ClientHopSigner(KEYS);
    const v = new ClientHopVerifier(KEYS);
    const a = signer.stamp('203.0.113.5')!;
    assert.equal(signer.stamp('203.0.113.5'), a, 'cached');
    assert.equal(v.verify(a), '203.0.113.5');
    assert.equal(v.verify(signer.stamp('2001:db8::1')!), '2001:db8::1');
    assert.deepEqual(clientAddress(a, '127.0.0.1', v), { ip: '203.0.113.5', viaGateway: true });
  });

  it('falls back to the TCP peer for absent, forged or expired stamps', () => {
    const v = new ClientHopVerifier(KEYS);
    assert.deepEqual(clientAddress(undefined, '127.0.0.9', v), { ip: '127.0.0.9', viaGateway: false });
    assert.deepEqual(clientAddress('203.0.113.5', '127.0.0.9', v), { ip: '127.0.0.9', viaGateway: false });
    const other = new ClientHopSigner(['z'.repeat(40)]).stamp('203.0.113.5')!;
    assert.equal(v.verify(other), null, 'signed with another key');
    let now = 1_000_000;
    const old = new ClientHopSigner(KEYS, () => now).stamp('203.0.113.5')!;
    now += CLIENT_HOP_LIFETIME_SECONDS;
    assert.equal(v.verify(old, now), null, 'expired');
    assert.equal(v.verify(old, now - 1), '203.0.113.5');
  });

  it('signs nothing without keys', () => {
    assert.equal(new ClientHopSigner([]).stamp('192.0.2.1'), null);
  });

  it('accepts a stamp signed with an older key (rotation)', () => {
    assert.equal(new ClientHopVerifier(KEYS).verify(new ClientHopSigner([KEYS[1]!]).stamp('192.0.2.1')!), '192.0.2.1');
  });

  it('is not interchangeable with a principal stamp (derived keys)', () => {
    const v = new ClientHopVerifier(KEYS);
    const principal = signStamp(servicePrincipal('gateway', 't'), KEYS);
    assert.equal(v.verify(principal), null, 'a principal is no hop stamp');
    const hop = new ClientHopSigner(KEYS).stamp('192.0.2.1')!;
    assert.equal(verifyStamp(hop, KEYS).ok, false, 'a hop stamp is no principal');
    // Even a hop-shaped payload signed with the principal keys themselves is refused.
    const exp = Math.floor(Date.now() / 1000) + 30;
    assert.equal(v.verify(signStamp({ typ: 'svc-client', ip: '192.0.2.1', exp }, KEYS)), null);
    assert.equal(v.verify(signStamp({ typ: 'svc-client', ip: 'not an ip', exp }, clientHopKeys(KEYS))), null);
    assert.equal(v.verify(signStamp({ typ: 'other', ip: '192.0.2.1', exp }, clientHopKeys(KEYS))), null);
  });
});
