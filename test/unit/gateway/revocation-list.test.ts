/** The gateway's revocation list and its feed poll (issue 11 item 9). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RevocationFeed } from '../../../services/auth/src/contracts.js';
import { pollRevocations } from '../../../services/gateway/src/clients/revocation-feed.js';
import type { BearerValidator, ValidatedClaims } from '../../../services/gateway/src/contracts.js';
import { RevocationCheckingValidator, RevocationList } from '../../../services/gateway/src/domain/revocation-list.js';

const ISS = 'http://127.0.0.1:8080/auth';
const T0 = Date.UTC(2030, 0, 1);
const claims = (over: Partial<ValidatedClaims> = {}): ValidatedClaims => ({ iss: ISS, sub: 'u1', iat: T0 / 1000 - 10, exp: T0 / 1000 + 600, sid: 's1', ...over });
const feed = (items: RevocationFeed['items'], latest = items.at(-1)?.seq ?? 0): RevocationFeed => ({ issuer: ISS, latest, keep_seconds: 660, items });

describe('RevocationList', () => {
  it('refuses tokens of a revoked subject issued up to the revocation, not later ones', () => {
    const l = new RevocationList();
    assert.equal(l.isRevoked(claims()), false);
    l.apply(feed([{ seq: 1, sub: 'u1', sid: null, revoked_at: T0 }]), T0);
    assert.equal(l.isRevoked(claims()), true);
    assert.equal(l.isRevoked(claims({ iat: T0 / 1000 })), true, 'same second: refused');
    assert.equal(l.isRevoked(claims({ iat: T0 / 1000 + 1 })), false, 'issued after');
    assert.equal(l.isRevoked(claims({ sub: 'u2' })), false);
    assert.equal(l.isRevoked(claims({ iss: 'https://idp.example.test/realms/corp' })), false, 'other issuers untouched');
    assert.equal(l.cursor, 1);
  });

  it('refuses every token of a revoked session', () => {
    const l = new RevocationList();
    l.apply(feed([{ seq: 4, sub: 'u1', sid: 's1', revoked_at: T0 }]), T0);
    assert.equal(l.isRevoked(claims({ iat: T0 / 1000 + 5 })), true);
    assert.equal(l.isRevoked(claims({ sid: 's2' })), false);
  });

  it('drops entries once no token they concern can still be valid', () => {
    const l = new RevocationList();
    l.apply(feed([{ seq: 1, sub: 'u1', sid: null, revoked_at: T0 }]), T0);
    l.prune(T0 + 660_000);
    assert.equal(l.size, 1);
    l.prune(T0 + 660_001);
    assert.equal(l.size, 0);
  });

  it('answers token_revoked through the checking validator', async () => {
    const l = new RevocationList();
    l.apply(feed([{ seq: 1, sub: 'u1', sid: null, revoked_at: T0 }]), T0);
    const inner: BearerValidator = { validate: async (t) => claims({ sub: t }) };
    const v = new RevocationCheckingValidator(inner, l);
    assert.equal((await v.validate('u2')).sub, 'u2');
    await assert.rejects(v.validate('u1'), (e: { code?: string; headers?: Record<string, string> }) => e.code === 'token_revoked' && /revoked/.test(e.headers?.['www-authenticate'] ?? ''));
  });
});

describe('pollRevocations', () => {
  it('reads pages after the cursor until a short page, and starts over when the feed was replaced', async () => {
    const asked: number[] = [];
    const pages = new Map<number, RevocationFeed>([
      [0, feed(Array.from({ length: 1000 }, (_, i) => ({ seq: i + 1, sub: `u${i}`, sid: null, revoked_at: T0 })))],
      [1000, feed([{ seq: 1001, sub: 'last', sid: null, revoked_at: T0 }])],
    ]);
    const l = new RevocationList();
    await pollRevocations({ revocations: async (after) => { asked.push(after); return pages.get(after) ?? feed([], 1001); } }, l, () => T0);
    assert.deepEqual(asked, [0, 1000]);
    assert.equal(l.cursor, 1001);
    assert.equal(l.isRevoked(claims({ sub: 'last' })), true);

    // The auth store was replaced: its latest seq is below our cursor.
    asked.length = 0;
    const fresh = feed([{ seq: 1, sub: 'other', sid: null, revoked_at: T0 }]);
    await pollRevocations({ revocations: async (after) => { asked.push(after); return after === 0 ? fresh : feed([], 1); } }, l, () => T0);
    assert.deepEqual(asked, [1001, 0]);
    assert.equal(l.cursor, 1);
    assert.equal(l.isRevoked(claims({ sub: 'last' })), false);
    assert.equal(l.isRevoked(claims({ sub: 'other' })), true);
  });
});
