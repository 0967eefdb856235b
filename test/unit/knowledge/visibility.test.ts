/** The knowledge visibility rules: governance of writes, tag and user lists, the wiki read rule, viewers and document access over fake stores. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../../../services/shared/identity/principal.js';
import { isDomainError } from '../../../services/shared/kit/domain-error.js';
import { toErrorResponse } from '../../../services/shared/kit/errors.js';
import { KNOWLEDGE_ERRORS } from '../../../services/knowledge/src/contracts.js';
import type { AudienceStore, DocumentRow, DocumentStore, Viewer, WikiRow } from '../../../services/knowledge/src/domain/ports.js';
import { canReadWiki, cleanTags, cleanUsers, isAdmin, resolveGovernance, Visibility } from '../../../services/knowledge/src/domain/visibility.js';

const who = (id: string, roles: string[] = ['user'], groups: string[] = []): Principal =>
  ({ id, tenant_id: 't', roles, groups, auth_method: 'password', iat: 0, exp: 0 }) as Principal;

/** The answer an error gets from the kit with the knowledge table. */
function answer(fn: () => unknown): { status: number; body: Record<string, unknown> } {
  try { fn(); } catch (err) {
    assert.ok(isDomainError(err), `a DomainError, got ${String(err)}`);
    const r = toErrorResponse(err, KNOWLEDGE_ERRORS);
    return { status: r.status, body: r.body };
  }
  assert.fail('expected an error');
}

/** `answer` for an async call (the domain awaits its stores; issue 21 item 1). */
async function answerAsync(fn: () => Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  try { await fn(); } catch (err) {
    return answer(() => { throw err; });
  }
  assert.fail('expected an error');
}

test('admin roles: admin, tenant_admin, platform_admin', () => {
  assert.equal(isAdmin(who('a', ['admin'])), true);
  assert.equal(isAdmin(who('a', ['user', 'tenant_admin'])), true);
  assert.equal(isAdmin(who('a', ['platform_admin'])), true);
  assert.equal(isAdmin(who('a', ['user', 'service-account'])), false);
});

test('cleanTags and cleanUsers: distinct values; a bad entry answers 400 naming the field', () => {
  assert.deepEqual(cleanTags(undefined, 'tags'), []);
  assert.deepEqual(cleanTags(['legal', 'a.b:c-d_e', 'legal'], 'tags'), ['legal', 'a.b:c-d_e']);
  assert.deepEqual(answer(() => cleanTags(['-x'], 'audience_tags')), {
    status: 400, body: { error: 'audience_tags holds an invalid tag (letters, digits, . _ : -; at most 64)', code: 'invalid_request', field: 'audience_tags' },
  });
  assert.equal(answer(() => cleanTags('legal', 'tags')).body.error, 'tags must be an array of strings');
  assert.equal(answer(() => cleanTags(['x'.repeat(65)], 'tags')).status, 400);
  assert.deepEqual(cleanUsers(['bob', 'bob', 'carol'], 'user_grants'), ['bob', 'carol']);
  assert.equal(answer(() => cleanUsers([''], 'user_ids')).body.field, 'user_ids');
  assert.equal(answer(() => cleanUsers(['x'.repeat(257)], 'user_ids')).status, 400);
});

test('resolveGovernance: private by default, owner changes by admins only, tenant-wide shares confirmed', () => {
  assert.deepEqual(resolveGovernance(who('alice'), {}), { visibility: 'private', audiences: [], grants: [], owner: 'alice' });
  assert.deepEqual(answer(() => resolveGovernance(who('alice'), { owner_user_id: 'bob' })), {
    status: 403, body: { error: 'only admins may make another user the owner of an item', code: 'owner_forbidden' },
  });
  assert.equal(resolveGovernance(who('root', ['admin']), { owner_user_id: 'bob' }).owner, 'bob');
  assert.equal(answer(() => resolveGovernance(who('alice'), { visibility_mode: 'shared' })).body.code, 'confirm_tenant_wide_required');
  assert.equal(answer(() => resolveGovernance(who('alice'), { visibility_mode: 'shared' })).status, 400);
  assert.deepEqual(resolveGovernance(who('alice'), { visibility_mode: 'shared', confirm_tenant_wide: true }).audiences, []);
  assert.deepEqual(resolveGovernance(who('alice'), { visibility_mode: 'shared', audience_tags: ['legal'] }).audiences, ['legal']);
  assert.equal(answer(() => resolveGovernance(who('alice'), { visibility_mode: 'private', user_grants: ['bob'] })).body.field, 'visibility_mode');
  assert.equal(answer(() => resolveGovernance(who('alice'), { visibility_mode: 'shared', audience_tags: ['x'], user_grants: ['bob'] })).body.field, 'user_grants');
  assert.deepEqual(resolveGovernance(who('alice'), { visibility_mode: 'restricted', user_grants: ['bob'], audience_tags: ['legal'] }),
    { visibility: 'restricted', audiences: ['legal'], grants: ['bob'], owner: 'alice' });
});

test('canReadWiki follows the visibility table', () => {
  const page = (over: Partial<WikiRow>): WikiRow => ({
    tenant_id: 't', topic: 'p', title: 'P', summary: '', tags: [], content: '', owner_user_id: 'alice', visibility_mode: 'private',
    audience_tags: [], user_grants: [], created_by: 'alice', updated_by: 'alice', created_at: '', updated_at: '', ...over,
  });
  const v = (userId: string, audiences: string[] = [], admin = false): Viewer => ({ tenantId: 't', userId, admin, audiences });
  assert.equal(canReadWiki(v('alice'), page({})), true, 'owner');
  assert.equal(canReadWiki(v('root', [], true), page({})), true, 'admin');
  assert.equal(canReadWiki(v('bob'), page({})), false, 'private');
  assert.equal(canReadWiki(v('bob'), page({ visibility_mode: 'shared' })), true, 'tenant-wide');
  assert.equal(canReadWiki(v('bob'), page({ visibility_mode: 'shared', audience_tags: ['legal'] })), false);
  assert.equal(canReadWiki(v('carol', ['legal']), page({ visibility_mode: 'shared', audience_tags: ['legal'] })), true);
  assert.equal(canReadWiki(v('bob'), page({ visibility_mode: 'restricted', user_grants: ['bob'] })), true, 'grant');
  assert.equal(canReadWiki(v('carol', ['legal']), page({ visibility_mode: 'restricted', audience_tags: ['legal'] })), true, 'audience');
  assert.equal(canReadWiki(v('dave'), page({ visibility_mode: 'restricted', user_grants: ['bob'], audience_tags: ['legal'] })), false);
});

test('Visibility over fake stores: viewers join memberships and groups; invisible is 404, visible-only is 403 not_owner', async () => {
  const doc = { id: 'd1', owner_user_id: 'alice', visibility_mode: 'restricted', user_grants: ['bob'] } as DocumentRow;
  const seen: Viewer[] = [];
  const documents = {
    getVisible: (viewer: Viewer, id: string) => {
      seen.push(viewer);
      return id === 'd1' && (viewer.admin || viewer.userId === 'alice' || viewer.userId === 'bob') ? doc : null;
    },
  } as unknown as DocumentStore;
  const audiences = { ofUser: (_t: string, user: string) => (user === 'bob' ? ['legal', 'ops'] : []) } as unknown as AudienceStore;
  const vis = new Visibility({ tenantId: 'acme', audiences, documents });
  assert.deepEqual(await vis.viewerOf(who('bob', ['user'], ['ops', 'eng'])), { tenantId: 'acme', userId: 'bob', admin: false, audiences: ['legal', 'ops', 'eng'], scope: null });
  assert.equal(await vis.visibleDocument(who('bob'), 'd1'), doc);
  assert.deepEqual(await answerAsync(() => vis.visibleDocument(who('dave'), 'd1')), { status: 404, body: { error: 'no document d1', code: 'not_found' } });
  assert.deepEqual(await answerAsync(() => vis.managedDocument(who('bob'), 'd1')), {
    status: 403, body: { error: 'only the owner or an admin may change this document', code: 'not_owner' },
  });
  assert.equal(await vis.managedDocument(who('alice'), 'd1'), doc);
  assert.equal(await vis.managedDocument(who('root', ['admin']), 'd1'), doc);
  assert.equal(seen.at(-1)!.admin, true);
});
