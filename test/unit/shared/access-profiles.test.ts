/** The pure permission-profile rules shared by the runtime and the knowledge service (issue 13 item 8). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { knowledgeScopeOf, matchesAny, profileApplies, unionOfNamed } from '../../../services/shared/identity/access-profiles.js';

const legal = { roles: [], groups: ['Legal'], knowledge: { tags: ['legal', 'contracts'] } };
const staff = { roles: ['user'], groups: [], knowledge: { audiences: ['staff'] } };
const quiet = { roles: ['user'], groups: [], knowledge: {} };
const open = { roles: ['admin'], groups: [], knowledge: { tags: ['*'] } };

test('a profile applies on intersecting roles or groups, never on a group named like a role', () => {
  assert.equal(profileApplies(staff, { roles: ['user'] }), true);
  assert.equal(profileApplies(staff, { groups: ['user'] }), false);
  assert.equal(profileApplies(legal, { roles: ['user'], groups: ['Legal'] }), true);
  assert.equal(profileApplies(legal, {}), false);
});

test('the knowledge scope is the union of the applying profiles that name knowledge; none naming any or * = not narrowed', () => {
  assert.deepEqual(knowledgeScopeOf([legal, staff, quiet], { roles: ['user'], groups: ['Legal'] }), { audiences: ['staff'], tags: ['contracts', 'legal'] });
  assert.deepEqual(knowledgeScopeOf([legal, quiet], { roles: ['user'], groups: ['Legal'] }), { audiences: [], tags: ['contracts', 'legal'] }, 'a profile naming no knowledge has no say');
  assert.equal(knowledgeScopeOf([quiet], { roles: ['user'] }), null, 'no applying profile names knowledge');
  assert.equal(knowledgeScopeOf([legal], { roles: ['user'] }), null, 'the naming profile does not apply');
  assert.equal(knowledgeScopeOf([legal, open], { roles: ['admin'], groups: ['Legal'] }), null, '* lifts the narrowing');
});

test('list unions and patterns', () => {
  assert.deepEqual(unionOfNamed([{ l: ['b', 'a'] }, { l: ['a'] }, { l: undefined }], (p) => p.l), ['a', 'b']);
  assert.equal(unionOfNamed([{ l: [] as string[] }], (p) => p.l), null);
  assert.equal(unionOfNamed([{ l: ['a', '*'] }], (p) => p.l), null);
  assert.equal(matchesAny(['knowledge_*'], 'knowledge_search'), true);
  assert.equal(matchesAny(['knowledge_*'], 'memory_search'), false);
});
