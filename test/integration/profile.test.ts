/**
 * The user profile over real sockets (issue 13 item 2; spec "Agent runtime surfaces":
 * `/v1/user/profile` and sub-paths, "Identity headers": X-User-Timezone): read and update with
 * validated timezone and language, the timezone seeded from the header on first contact only, and
 * the draft the `profile_curation` role proposes after a turn through the REAL inference router:
 * none while the role is not mapped; a draft once it is; accept -> the next turn's model request
 * carries the profile; dismiss -> the same suggestion is never proposed again.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ProfileChange, ProfileDraft, UserProfile } from '../../services/agent-runtime/src/contracts.js';
import type { RecordedRequest } from '../helpers/scripted-llm.js';
import { startProfileStack, type ProfileStack } from '../helpers/profile-stack.js';

let s: ProfileStack;
/** What the curation model proposes next (per user). */
const proposals = new Map<string, ProfileChange[] | string>();
const ANSWER = 'ASSISTANT-ANSWER-7f3c';

const isCuration = (r: RecordedRequest): boolean => r.body.response_format !== undefined;
const userOf = (r: RecordedRequest): string => {
  const msgs = r.body.messages as Array<{ role: string; content: string }>;
  return /user:(\S+)/.exec(msgs[msgs.length - 1]!.content)?.[1] ?? '';
};

before(async () => {
  s = await startProfileStack({}, {
    script: (r) => {
      if (!isCuration(r)) return { content: ANSWER };
      const p = proposals.get(userOf(r)) ?? [];
      return { content: typeof p === 'string' ? p : '```json\n' + JSON.stringify({ changes: p }) + '\n```' };
    },
  });
});
after(async () => { await s.close(); });

/** One chat turn of `user`. @returns its turn id. */
const chat = async (user: string, text: string): Promise<string> => {
  const r = await s.call('POST', '/v1/chat', { messages: [{ role: 'user', content: `user:${user} ${text}` }] }, { id: user });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.message.content, ANSWER);
  return r.turnId;
};
const curations = (user: string): RecordedRequest[] => s.llm.requests.filter((r) => isCuration(r) && userOf(r) === user);
const draftOf = async (user: string): Promise<ProfileDraft | null> => {
  const r = await s.call('GET', '/v1/user/profile/draft', undefined, { id: user });
  assert.equal(r.status, 200);
  return r.body.draft as ProfileDraft | null;
};
const waitFor = async <T>(fn: () => Promise<T | null | undefined | false>, ms = 5000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('GET answers an empty profile; PUT validates and canonicalises timezone and language; fields left out keep their value', async () => {
  const empty = await s.call('GET', '/v1/user/profile', undefined, { id: 'ann' });
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body, { display_name: null, timezone: null, language: null, preferences: [], updated_at: null });
  const put = await s.call('PUT', '/v1/user/profile', { display_name: ' Ann ', timezone: 'europe/paris', language: 'EN-gb', preferences: ['Prefers metric units', 'Prefers metric units'] }, { id: 'ann' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const p = put.body as UserProfile;
  assert.equal(p.display_name, 'Ann');
  assert.equal(p.timezone, 'Europe/Paris');
  assert.equal(p.language, 'en-GB');
  assert.deepEqual(p.preferences, ['Prefers metric units']);
  assert.ok(p.updated_at);
  const partial = await s.call('PUT', '/v1/user/profile', { language: null }, { id: 'ann' });
  assert.equal(partial.body.language, null);
  assert.equal(partial.body.display_name, 'Ann', 'left out: kept');
  const got = await s.call('GET', '/v1/user/profile', undefined, { id: 'ann' });
  assert.deepEqual(got.body, partial.body);
  const badTz = await s.call('PUT', '/v1/user/profile', { timezone: 'Mars/Olympus_Mons' }, { id: 'ann' });
  assert.equal(badTz.status, 400);
  assert.equal(badTz.body.code, 'invalid_request');
  assert.equal(badTz.body.field, 'body.timezone');
  const offset = await s.call('PUT', '/v1/user/profile', { timezone: '+01:00' }, { id: 'ann' });
  assert.equal(offset.status, 400, 'offsets are not IANA names');
  const badLang = await s.call('PUT', '/v1/user/profile', { language: 'en_US' }, { id: 'ann' });
  assert.equal(badLang.status, 400);
  assert.equal(badLang.body.field, 'body.language');
  const extra = await s.call('PUT', '/v1/user/profile', { email: 'x@example.com' }, { id: 'ann' });
  assert.equal(extra.status, 400, 'unknown fields are refused');
  const other = await s.call('GET', '/v1/user/profile', undefined, { id: 'bob' });
  assert.equal(other.body.display_name, null, "another user's profile is their own");
});

test('X-User-Timezone seeds the timezone on first contact only, and never over one the user set or cleared', async () => {
  const first = await s.call('GET', '/v1/user/profile', undefined, { id: 'tz-1', headers: { 'x-user-timezone': 'america/new_york' } });
  assert.equal(first.body.timezone, 'America/New_York');
  assert.equal(first.body.updated_at, null, 'seeding is not a user change');
  const again = await s.call('GET', '/v1/user/profile', undefined, { id: 'tz-1', headers: { 'x-user-timezone': 'Asia/Tokyo' } });
  assert.equal(again.body.timezone, 'America/New_York', 'seeded once');
  // A user who cleared the timezone keeps it cleared (any route carries the header).
  await s.call('PUT', '/v1/user/profile', { timezone: null }, { id: 'tz-2' });
  await s.call('GET', '/v1/user/secrets', undefined, { id: 'tz-2', headers: { 'x-user-timezone': 'Asia/Tokyo' } });
  assert.equal((await s.call('GET', '/v1/user/profile', undefined, { id: 'tz-2' })).body.timezone, null);
  // An invalid header is ignored; seeding happens on any route (here the secrets list).
  await s.call('GET', '/v1/user/secrets', undefined, { id: 'tz-3', headers: { 'x-user-timezone': 'Nowhere/Atlantis' } });
  assert.equal((await s.call('GET', '/v1/user/profile', undefined, { id: 'tz-3' })).body.timezone, null);
  await s.call('GET', '/v1/user/secrets', undefined, { id: 'tz-4', headers: { 'x-user-timezone': 'Europe/Berlin' } });
  assert.equal((await s.call('GET', '/v1/user/profile', undefined, { id: 'tz-4' })).body.timezone, 'Europe/Berlin');
});

test('no profile_curation role mapped: no curation call, no draft', async () => {
  proposals.set('nora', [{ field: 'preferences', op: 'add', value: 'Prefers metric units' }]);
  await chat('nora', 'I always want metric units.');
  await sleep(400);
  assert.equal(curations('nora').length, 0, 'the curation model was not asked');
  assert.equal(await draftOf('nora'), null);
});

test('with profile_curation mapped a turn yields a draft; accept -> the next turn sends the profile; dismiss -> never proposed again', async () => {
  await s.mapRole('profile_curation');
  proposals.set('cleo', [
    { field: 'preferences', op: 'add', value: 'Prefers metric units' },
    { field: 'timezone', op: 'set', value: 'europe/berlin' },
    { field: 'language', op: 'set', value: 'not a language tag!' },
  ]);
  await chat('cleo', 'I live in Berlin and always want metric units.');
  const draft = await waitFor(() => draftOf('cleo'));
  assert.deepEqual(draft.changes, [
    { field: 'preferences', op: 'add', value: 'Prefers metric units' },
    { field: 'timezone', op: 'set', value: 'Europe/Berlin' },
  ], 'invalid changes dropped, valid ones canonical');
  assert.ok(draft.session_id);
  // Only the user's own message went to the curation model, never the assistant's answer.
  const asked = JSON.stringify(curations('cleo')[0]!.body.messages);
  assert.ok(asked.includes('always want metric units'));
  assert.ok(!asked.includes(ANSWER), 'the answer is not curation input');
  assert.equal(curations('cleo')[0]!.body.model, 'scripted-model', 'routed through the role');

  const stale = await s.call('POST', '/v1/user/profile/draft/accept', { id: '01JSTALEDRAFT0000000000000' }, { id: 'cleo' });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.code, 'profile_draft_changed');
  const accepted = await s.call('POST', '/v1/user/profile/draft/accept', { id: draft.id }, { id: 'cleo' });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  assert.equal(accepted.body.timezone, 'Europe/Berlin');
  assert.deepEqual(accepted.body.preferences, ['Prefers metric units']);
  assert.equal(await draftOf('cleo'), null, 'accepted: gone');
  const none = await s.call('POST', '/v1/user/profile/draft/accept', {}, { id: 'cleo' });
  assert.equal(none.status, 404);
  assert.equal(none.body.code, 'profile_draft_not_found');

  // The NEXT turn's model request carries the profile as a system message.
  proposals.set('cleo', []);
  const n = s.llm.requests.length;
  const next = await chat('cleo', 'What should I wear today?');
  const turnReq = s.llm.requests.slice(n).find((r) => !isCuration(r))!;
  const system = (turnReq.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  assert.match(system, /About the user/);
  assert.match(system, /Time zone: Europe\/Berlin/);
  assert.match(system, /Prefers metric units/);
  // ... and the context trace of that turn shows it as the `profile` part with its tokens.
  const record = await waitFor(async () => {
    const r = await s.call('GET', `/v1/context/turns/${next}`, undefined, { id: 'cleo' });
    return r.status === 200 ? r.body as { parts: Array<{ name: string; tokens: number; text?: string; state: string }> } : null;
  });
  const part = record.parts.find((x) => x.name === 'profile');
  assert.ok(part, JSON.stringify(record.parts.map((x) => x.name)));
  assert.equal(part.state, 'included');
  assert.ok(part.tokens > 0 && part.tokens <= 256, `${part.tokens} tokens within AGENT_RUNTIME_PROFILE_BUDGET_TOKENS`);
  assert.match(part.text ?? '', /Prefers metric units/);

  // Dismiss: the same suggestion (however spelled) is never proposed again.
  proposals.set('cleo', [{ field: 'preferences', op: 'add', value: 'Likes short answers' }]);
  await chat('cleo', 'Keep it short, always.');
  const second = await waitFor(() => draftOf('cleo'));
  assert.deepEqual(second.changes.map((c) => c.value), ['Likes short answers']);
  const dismissed = await s.call('POST', '/v1/user/profile/draft/dismiss', { id: second.id }, { id: 'cleo' });
  assert.equal(dismissed.status, 204);
  assert.equal(await draftOf('cleo'), null);
  proposals.set('cleo', [{ field: 'preferences', op: 'add', value: '  likes SHORT answers. ' }]);
  const asked1 = curations('cleo').length;
  await chat('cleo', 'Short answers please.');
  await waitFor(async () => curations('cleo').length > asked1);
  await sleep(300);
  assert.equal(await draftOf('cleo'), null, 'a dismissed suggestion is not proposed again');
  // Mixed with a new one: only the new one is proposed.
  proposals.set('cleo', [{ field: 'preferences', op: 'add', value: 'Likes short answers' }, { field: 'display_name', op: 'set', value: 'Cleo' }]);
  await chat('cleo', 'I am Cleo; short answers please.');
  const third = await waitFor(() => draftOf('cleo'));
  assert.deepEqual(third.changes, [{ field: 'display_name', op: 'set', value: 'Cleo' }]);
});

test('an answer that is not a valid proposal is dropped; unmapping the role stops drafts', async () => {
  proposals.set('dora', 'Sure! I think the user likes cats.');
  await chat('dora', 'I like cats.');
  await waitFor(async () => curations('dora').length > 0);
  await sleep(300);
  assert.equal(await draftOf('dora'), null);
  proposals.set('dora', JSON.stringify({ changes: [{ field: 'email', op: 'set', value: 'x' }] }));
  await chat('dora', 'My email is x.');
  await waitFor(async () => curations('dora').length > 1);
  await sleep(300);
  assert.equal(await draftOf('dora'), null, 'schema-invalid answers are dropped');
  await s.unmapRole('profile_curation');
  proposals.set('dora', [{ field: 'preferences', op: 'add', value: 'Likes cats' }]);
  const before = curations('dora').length;
  await chat('dora', 'I like cats a lot.');
  await sleep(400);
  assert.equal(curations('dora').length, before, 'role unmapped: not asked');
  assert.equal(await draftOf('dora'), null);
});
