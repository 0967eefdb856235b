/**
 * Pure parts and the store of the user profile (issue 13 item 2): timezone and language
 * canonicalisation, the normalised suggestion hash, cleaning, merging and applying changes, the
 * profile's context part within its token budget, the curation answer parser, and the service over
 * the real SQLite store (migration 0003): seeding, propose/accept/dismiss.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileChange, UserProfile } from '../../../services/agent-runtime/src/contracts.js';
import {
  applyChanges, canonicalLanguage, canonicalTimezone, changeHash, cleanChanges, mergeChanges, normaliseText,
} from '../../../services/agent-runtime/src/domain/profile/changes.js';
import { PROFILE_PART_HEADER, profileContextPart } from '../../../services/agent-runtime/src/domain/profile/context-part.js';
import { curationMessages, parseProposal } from '../../../services/agent-runtime/src/domain/profile/curation.js';
import { ProfileService } from '../../../services/agent-runtime/src/domain/profile/service.js';
import { textTokens } from '../../../services/agent-runtime/src/domain/history.js';
import { openRuntimeStore } from '../../../services/agent-runtime/src/store/runtime-store.js';

const empty: UserProfile = { display_name: null, timezone: null, language: null, preferences: [], updated_at: null };
const pref = (value: string, op: 'add' | 'remove' = 'add'): ProfileChange => ({ field: 'preferences', op, value });

test('timezones are IANA names in canonical spelling; languages BCP 47 canonical; anything else null', () => {
  assert.equal(canonicalTimezone('europe/paris'), 'Europe/Paris');
  assert.equal(canonicalTimezone(' UTC '), 'UTC');
  assert.equal(canonicalTimezone('Mars/Base'), null);
  assert.equal(canonicalTimezone('+01:00'), null);
  assert.equal(canonicalTimezone(''), null);
  assert.equal(canonicalLanguage('EN-gb'), 'en-GB');
  assert.equal(canonicalLanguage('de'), 'de');
  assert.equal(canonicalLanguage('en_US'), null);
  assert.equal(canonicalLanguage('x'.repeat(40)), null);
});

test('a suggestion hash ignores case, spacing, width and trailing punctuation, not field or op', () => {
  assert.equal(normaliseText('  Likes   SHORT answers. '), 'likes short answers');
  assert.equal(changeHash(pref('Likes short answers')), changeHash(pref(' likes  short ANSWERS!')));
  assert.equal(changeHash(pref('Ｌikes short answers')), changeHash(pref('likes short answers')), 'NFKC');
  assert.notEqual(changeHash(pref('Likes short answers')), changeHash(pref('Likes short answers', 'remove')));
  assert.notEqual(changeHash(pref('Ann')), changeHash({ field: 'display_name', op: 'set', value: 'Ann' }));
});

test('cleanChanges keeps valid, canonical changes that change the profile and were not dismissed', () => {
  const p: UserProfile = { ...empty, display_name: 'Ann', preferences: ['Prefers metric units'] };
  const dismissed = new Set([changeHash(pref('Likes cats'))]);
  const out = cleanChanges([
    { field: 'display_name', op: 'set', value: 'ann' }, // no change (normalised)
    { field: 'display_name', op: 'add', value: 'Bob' }, // wrong op
    { field: 'timezone', op: 'set', value: 'asia/tokyo' },
    { field: 'language', op: 'set', value: 'klingon!!' },
    pref('prefers metric units.'), // present
    pref('Likes cats'), // dismissed
    pref('Likes dogs'),
    pref('likes dogs'), // repeat
    pref('Hates rain', 'remove'), // not present
    pref('Prefers metric units', 'remove'),
  ], p, (h) => dismissed.has(h));
  assert.deepEqual(out, [
    { field: 'timezone', op: 'set', value: 'Asia/Tokyo' },
    pref('Likes dogs'),
    pref('Prefers metric units', 'remove'),
  ]);
});

test('mergeChanges: a newer change replaces an older one on the same slot', () => {
  const merged = mergeChanges(
    [{ field: 'timezone', op: 'set', value: 'UTC' }, pref('Likes dogs'), pref('Likes tea')],
    [{ field: 'timezone', op: 'set', value: 'Europe/Paris' }, pref('likes dogs', 'remove')],
  );
  assert.deepEqual(merged, [pref('Likes tea'), { field: 'timezone', op: 'set', value: 'Europe/Paris' }, pref('likes dogs', 'remove')]);
});

test('applyChanges sets fields, adds and removes preferences, keeps at most 50 (the newest)', () => {
  const p = applyChanges({ ...empty, preferences: ['A', 'B'] }, [{ field: 'language', op: 'set', value: 'fr' }, pref('b', 'remove'), pref('C'), pref('a')]);
  assert.equal(p.language, 'fr');
  assert.deepEqual(p.preferences, ['C', 'a']);
  const many = applyChanges({ ...empty, preferences: Array.from({ length: 50 }, (_, i) => `p${i}`) }, [pref('new one')]);
  assert.equal(many.preferences.length, 50);
  assert.equal(many.preferences[49], 'new one');
  assert.equal(many.preferences[0], 'p1');
});

test('profileContextPart: null when empty or budget 0; within the budget, preferences cut with a note', () => {
  assert.equal(profileContextPart(empty, 256), null);
  const full: UserProfile = { ...empty, display_name: 'Ann', timezone: 'Europe/Paris', language: 'en-GB', preferences: Array.from({ length: 30 }, (_, i) => `Preference number ${i} with some words`) };
  assert.equal(profileContextPart(full, 0), null);
  const big = profileContextPart(full, 10_000)!;
  assert.ok(big.text.startsWith(PROFILE_PART_HEADER));
  assert.match(big.text, /- Name: Ann\n- Time zone: Europe\/Paris\n- Language: en-GB\n- Preferences:\n {2}- Preference number 0/);
  assert.ok(big.text.includes('Preference number 29'));
  assert.equal(big.tokens, textTokens(big.text));
  for (const budget of [40, 64, 100, 256]) {
    const part = profileContextPart(full, budget)!;
    assert.ok(part.tokens <= budget, `${budget}: ${part.tokens}`);
    assert.ok(part.text.includes('- Name: Ann'));
  }
  const cut = profileContextPart(full, 100)!;
  assert.match(cut.text, /\(\d+ more preferences not shown\)$/);
  assert.equal(profileContextPart(full, 5), null, 'not even the first field fits');
});

test('parseProposal accepts the JSON object (fences tolerated) that matches the schema, nothing else', async () => {
  assert.deepEqual(await parseProposal('```json\n{"changes":[{"field":"preferences","op":"add","value":"Likes tea"}]}\n```'), [pref('Likes tea')]);
  assert.deepEqual(await parseProposal('{"changes":[]}'), []);
  assert.equal(await parseProposal('Sure, the user likes tea.'), null);
  assert.equal(await parseProposal('{"changes":[{"field":"email","op":"set","value":"x"}]}'), null);
  assert.equal(await parseProposal('{"changes":[{"field":"preferences","op":"add","value":"x","why":"y"}]}'), null, 'no extra properties');
  assert.equal(await parseProposal(`{"changes":[{"field":"preferences","op":"add","value":"${'x'.repeat(501)}"}]}`), null, 'value at most 500');
  assert.equal(await parseProposal('{"changes": "none"}'), null);
  assert.equal(await parseProposal('{not json}'), null);
});

test('curationMessages sends the instructions, the current profile and only the user text (cut at 4,000 characters)', () => {
  const m = curationMessages({ ...empty, display_name: 'Ann' }, 'x'.repeat(5000));
  assert.equal(m.length, 2);
  assert.equal(m[0]!.role, 'system');
  const user = String(m[1]!.content);
  assert.ok(user.includes('"display_name":"Ann"'));
  assert.ok(!user.includes('x'.repeat(4001)));
});

test('ProfileService over SQLite: seed once, propose merges and filters, accept applies, dismiss remembers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-profile-unit-'));
  const store = openRuntimeStore({ dbDir: dir, migrationsDir: join(process.cwd(), 'migrations') });
  try {
    const svc = new ProfileService({ store: store.userProfiles, tx: store.txAsync, budgetTokens: 256 });
    const o = { tenantId: 't', userId: 'u' };
    assert.equal(await svc.seedTimezone(o, 'Nowhere/Land'), false);
    assert.equal(await svc.seedTimezone(o, 'europe/rome'), true);
    assert.equal(await svc.seedTimezone(o, 'Asia/Tokyo'), false, 'once');
    assert.equal((await svc.get(o)).timezone, 'Europe/Rome');
    assert.equal((await svc.get(o)).updated_at, null);
    assert.match((await svc.contextPart('t', 'u'))!.text, /Time zone: Europe\/Rome/);
    assert.equal(await svc.contextPart('t', 'nobody'), null);

    assert.equal(await svc.propose(o, [{ field: 'timezone', op: 'set', value: 'Europe/Rome' }], { sessionId: 's', turnId: null }), null, 'no change: no draft');
    const d1 = (await svc.propose(o, [pref('Likes tea')], { sessionId: 's1', turnId: 't1' }))!;
    const d2 = (await svc.propose(o, [pref('Likes jazz')], { sessionId: 's2', turnId: 't2' }))!;
    assert.notEqual(d1.id, d2.id);
    assert.deepEqual(d2.changes, [pref('Likes tea'), pref('Likes jazz')], 'merged into the pending draft');
    await assert.rejects(() => svc.dismiss(o, d1.id), { code: 'profile_draft_changed' });
    await svc.dismiss(o, d2.id);
    assert.equal(await svc.draft(o), null);
    assert.equal(await svc.propose(o, [pref('likes TEA')], { sessionId: null, turnId: null }), null, 'dismissed');
    const d3 = (await svc.propose(o, [pref('Likes jazz'), { field: 'display_name', op: 'set', value: 'Uma' }], { sessionId: null, turnId: null }))!;
    assert.deepEqual(d3.changes, [{ field: 'display_name', op: 'set', value: 'Uma' }]);
    const after = await svc.accept(o);
    assert.equal(after.display_name, 'Uma');
    assert.equal(after.timezone, 'Europe/Rome');
    assert.ok(after.updated_at);
    await assert.rejects(() => svc.accept(o), { code: 'profile_draft_not_found' });
    await assert.rejects(() => svc.put(o, { timezone: 'bad/zone' }), { code: 'invalid_request' });
    await svc.put(o, { timezone: null });
    assert.equal(await svc.seedTimezone(o, 'Asia/Tokyo'), false, 'cleared by the user: not seeded again');
    const other = await svc.get({ tenantId: 't2', userId: 'u' });
    assert.equal(other.display_name, null, 'tenants apart');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
