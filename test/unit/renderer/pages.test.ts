/**
 * The pages' pure rules: client-side routes, the knowledge labels and visibility draft, and the
 * plain-words messages for the services' error codes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRenderer } from './load.js';

interface Route { route(path: string): { page: string; param: string | null } }
interface Doc { visibility_mode: 'private' | 'shared' | 'restricted'; audience_tags: string[]; user_grants: string[]; source_type: string; filename: string | null; metadata: Record<string, unknown>; owner_user_id: string }
interface Labels { audienceOf(d: Pick<Doc, 'visibility_mode' | 'audience_tags' | 'user_grants'>): string; size(n: number | null): string; kindOf(d: Pick<Doc, 'source_type' | 'filename' | 'metadata'>): string; VISIBILITY_HELP: Record<string, string> }
interface Draft { visibility: 'private' | 'shared' | 'restricted'; tags: string[]; newTags: string; grants: string; confirm: boolean }
interface Visibility {
  canManage(me: { id: string; roles: string[] } | undefined, d: { owner_user_id: string }): boolean;
  splitList(s: string): string[];
  PRIVATE_DRAFT: Draft;
  draftOf(d: Pick<Doc, 'visibility_mode' | 'audience_tags' | 'user_grants'>): Draft;
  resolveDraft(v: Draft): { audienceTags: string[]; userGrants: string[]; needsConfirm: boolean; restrictedEmpty: boolean; badTags: string[]; blocked: boolean };
  patchOf(v: Draft): Record<string, unknown>;
}
interface ApiErrorCtor { ApiError: new (status: number, code: string, message: string) => Error }
interface Messages { signInMessage(e: unknown): string }
interface Upload { uploadMessage(e: unknown): string }

const { route } = await loadRenderer<Route>('app/route.ts');
const labels = await loadRenderer<Labels>('knowledge/labels.ts');
const vis = await loadRenderer<Visibility>('knowledge/visibility-draft.ts');
const { ApiError } = await loadRenderer<ApiErrorCtor>('api/http.ts');
const auth = await loadRenderer<Messages>('api/auth.ts');
const upload = await loadRenderer<Upload>('knowledge/upload.ts');

test('route: the section and its decoded parameter; anything else is the chat', () => {
  assert.deepEqual(route('/'), { page: 'chat', param: null });
  assert.deepEqual(route('/chat'), { page: 'chat', param: null });
  assert.deepEqual(route('/chat/s%201'), { page: 'chat', param: 's 1' });
  assert.deepEqual(route('/receipts/t1'), { page: 'receipts', param: 't1' });
  assert.deepEqual(route('/admin/usage'), { page: 'admin', param: 'usage' });
  assert.deepEqual(route('/knowledge/d1#chunk-2'), { page: 'knowledge', param: 'd1#chunk-2' });
  assert.deepEqual(route('/memory'), { page: 'memory', param: null });
  assert.deepEqual(route('/approvals'), { page: 'approvals', param: null });
  assert.deepEqual(route('/nowhere/x'), { page: 'chat', param: null });
});

test('labels: who reads a document, sizes, kinds', () => {
  assert.equal(labels.audienceOf({ visibility_mode: 'shared', audience_tags: [], user_grants: [] }), 'everyone');
  assert.equal(labels.audienceOf({ visibility_mode: 'private', audience_tags: [], user_grants: [] }), '');
  assert.equal(labels.audienceOf({ visibility_mode: 'restricted', audience_tags: ['fin', 'legal'], user_grants: ['u1'] }), '#fin, #legal, 1 user');
  assert.equal(labels.audienceOf({ visibility_mode: 'restricted', audience_tags: [], user_grants: ['u1', 'u2'] }), '2 users');
  assert.deepEqual([labels.size(null), labels.size(512), labels.size(2048), labels.size(3 * 1024 * 1024)], ['—', '512 B', '2.0 KB', '3.0 MB']);
  assert.equal(labels.kindOf({ source_type: 'file', filename: 'plan.v2.pdf', metadata: {} }), 'PDF');
  assert.equal(labels.kindOf({ source_type: 'file', filename: null, metadata: { filename: 'notes.md' } }), 'MD');
  assert.equal(labels.kindOf({ source_type: 'text', filename: null, metadata: {} }), 'text');
  assert.deepEqual(Object.keys(labels.VISIBILITY_HELP).sort(), ['private', 'restricted', 'shared']);
});

test('visibility draft: who manages, drafts of documents, what blocks, the PATCH body', () => {
  assert.equal(vis.canManage({ id: 'u1', roles: ['user'] }, { owner_user_id: 'u1' }), true);
  assert.equal(vis.canManage({ id: 'u2', roles: ['user'] }, { owner_user_id: 'u1' }), false);
  assert.equal(vis.canManage({ id: 'u2', roles: ['tenant_admin'] }, { owner_user_id: 'u1' }), true);
  assert.equal(vis.canManage(undefined, { owner_user_id: 'u1' }), false);
  assert.deepEqual(vis.splitList(' a, b  c,,a '), ['a', 'b', 'c']);
  assert.deepEqual(vis.draftOf({ visibility_mode: 'shared', audience_tags: [], user_grants: [] }), { visibility: 'shared', tags: [], newTags: '', grants: '', confirm: true });
  assert.deepEqual(vis.draftOf({ visibility_mode: 'restricted', audience_tags: ['fin'], user_grants: ['u1', 'u2'] }).grants, 'u1, u2');

  const priv = vis.resolveDraft({ ...vis.PRIVATE_DRAFT, tags: ['ignored'] });
  assert.deepEqual(priv, { audienceTags: [], userGrants: [], needsConfirm: false, restrictedEmpty: false, badTags: [], blocked: false });
  assert.deepEqual(vis.patchOf(vis.PRIVATE_DRAFT), { visibility_mode: 'private' });

  const wide: Draft = { visibility: 'shared', tags: [], newTags: '', grants: 'u9', confirm: false };
  assert.equal(vis.resolveDraft(wide).blocked, true, 'tenant-wide needs the confirmation');
  assert.deepEqual(vis.resolveDraft(wide).userGrants, [], 'grants only for restricted');
  assert.deepEqual(vis.patchOf({ ...wide, confirm: true }), { visibility_mode: 'shared', audience_tags: [], confirm_tenant_wide: true });

  const restricted: Draft = { visibility: 'restricted', tags: ['fin'], newTags: 'legal, fin', grants: '', confirm: false };
  assert.deepEqual(vis.resolveDraft(restricted).audienceTags, ['fin', 'legal']);
  assert.deepEqual(vis.patchOf(restricted), { visibility_mode: 'restricted', audience_tags: ['fin', 'legal'], user_grants: [] });
  assert.equal(vis.resolveDraft({ ...restricted, tags: [], newTags: '' }).restrictedEmpty, true);
  assert.equal(vis.resolveDraft({ ...restricted, tags: [], newTags: '' }).blocked, true);
  const bad = vis.resolveDraft({ ...restricted, newTags: 'ok bad/tag -lead' });
  assert.deepEqual(bad.badTags, ['bad/tag', '-lead']);
  assert.equal(bad.blocked, true);
});

test('error codes in plain words: sign-in and upload', () => {
  assert.equal(auth.signInMessage(new ApiError(401, 'invalid_credentials', 'x')), 'Wrong username or password.');
  assert.equal(auth.signInMessage(new ApiError(429, 'login_throttled', 'x')), 'Too many failed attempts. Wait a minute, then try again.');
  assert.equal(auth.signInMessage(new ApiError(0, 'network_error', 'x')), 'The server cannot be reached. Check that the stack is running.');
  assert.equal(auth.signInMessage(new ApiError(503, 'whatever', 'x')), 'The server had a problem signing you in. Try again shortly.');
  assert.equal(auth.signInMessage(new ApiError(418, 'teapot', 'short and stout')), 'short and stout');
  assert.equal(auth.signInMessage(new Error('x')), 'Sign-in failed. Try again.');
  assert.match(upload.uploadMessage(new ApiError(415, 'unsupported_format', 'x')), /^This file type is not supported/);
  assert.equal(upload.uploadMessage(new ApiError(413, 'payload_too_large', 'over 50 MB')), 'The file is too large: over 50 MB');
  assert.equal(upload.uploadMessage(new ApiError(500, 'internal_error', '')), 'Upload failed (HTTP 500).');
  assert.equal(upload.uploadMessage(new Error('plain')), 'plain');
});
