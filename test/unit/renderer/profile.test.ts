/**
 * The profile page's rules (issue 13 items 2, 3): a suggested change as a sentence, the preferences
 * textarea as a list, secret name validation as the server's, and the `/profile` route.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProfileChange } from '../../../services/agent-runtime/src/contracts.js';
import { loadRenderer } from './load.js';

interface Text {
  describeChange(c: ProfileChange): string;
  preferencesOf(text: string): string[];
  validSecretName(name: string): boolean;
  knownTimezones(): string[];
  deviceTimezone(): string | null;
}
const t = await loadRenderer<Text>('profile/draft-text.ts');
const { route } = await loadRenderer<{ route(path: string): { page: string; param: string | null } }>('app/route.ts');

test('a suggested change reads as a sentence', () => {
  assert.equal(t.describeChange({ field: 'timezone', op: 'set', value: 'Europe/Berlin' }), 'Set your time zone to Europe/Berlin');
  assert.equal(t.describeChange({ field: 'display_name', op: 'set', value: 'Ann' }), 'Set your name to Ann');
  assert.equal(t.describeChange({ field: 'preferences', op: 'add', value: 'Likes tea' }), 'Remember: Likes tea');
  assert.equal(t.describeChange({ field: 'preferences', op: 'remove', value: 'Likes tea' }), 'Forget: Likes tea');
});

test('preferences: one per line, trimmed, no blanks or repeats', () => {
  assert.deepEqual(t.preferencesOf(' Likes tea \n\n  \nPrefers metric units\nLikes tea'), ['Likes tea', 'Prefers metric units']);
  assert.deepEqual(t.preferencesOf(''), []);
});

test('secret names as the server checks them; the time zone helpers answer', () => {
  for (const ok of ['OPENAI_API_KEY', 'a.b-c_1', 'x'.repeat(64)]) assert.equal(t.validSecretName(ok), true, ok);
  for (const bad of ['', 'has space', 'a/b', 'x'.repeat(65), 'ünï']) assert.equal(t.validSecretName(bad), false, bad);
  assert.ok(t.knownTimezones().includes('Europe/Paris'));
  assert.equal(typeof t.deviceTimezone(), 'string');
});

test('/profile is the profile page', () => {
  assert.deepEqual(route('/profile'), { page: 'profile', param: null });
});
