/**
 * The notification UI's pure rules (issue 13 item 1): the SSE reader the live count parses the
 * stream with (records split across chunks, comments, CRLF, multi-line data), where a notification
 * leads (only in-app paths), "how long ago", and the `/notifications` route.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRenderer } from './load.js';

interface Sse { SseReader: new () => { push(chunk: string): Array<{ event: string; data: string }> } }
interface Links { notificationLink(n: { kind: string; payload: Record<string, unknown> | null }): string | null; ago(iso: string, now?: number): string }
interface Route { route(path: string): { page: string; param: string | null } }

const { SseReader } = await loadRenderer<Sse>('notifications/sse.ts');
const { notificationLink, ago } = await loadRenderer<Links>('notifications/links.ts');
const { route } = await loadRenderer<Route>('app/route.ts');

test('SseReader: records across chunks, keep-alive comments, CRLF, multi-line data, default event name', () => {
  const r = new SseReader();
  assert.deepEqual(r.push('event: unread_count\ndata: {"cou'), []);
  assert.deepEqual(r.push('nt":3}\n\n: keep-alive\n\n'), [{ event: 'unread_count', data: '{"count":3}' }]);
  assert.deepEqual(r.push('event:notification\r\ndata: {"id":"a"}\r\n\r\ndata: a\ndata: b\n\n'), [
    { event: 'notification', data: '{"id":"a"}' }, { event: 'message', data: 'a\nb' },
  ]);
  assert.deepEqual(r.push('event: x\n\n'), [], 'a record without data is dropped');
});

test('notificationLink: in-app payload links only; otherwise by kind', () => {
  assert.equal(notificationLink({ kind: 'x', payload: { link: '/knowledge/d1' } }), '/knowledge/d1');
  assert.equal(notificationLink({ kind: 'x', payload: { link: 'https://evil.example/' } }), null);
  assert.equal(notificationLink({ kind: 'x', payload: { link: '//evil.example/x' } }), null);
  assert.equal(notificationLink({ kind: 'x', payload: { link: 'javascript:alert(1)' } }), null);
  assert.equal(notificationLink({ kind: 'x', payload: { link: '/v1/admin/users' } }), null, 'not an app section');
  assert.equal(notificationLink({ kind: 'approval_waiting', payload: null }), '/approvals');
  assert.equal(notificationLink({ kind: 'document_failed', payload: { document_id: 'a b' } }), '/knowledge/a%20b');
  assert.equal(notificationLink({ kind: 'document_indexed', payload: {} }), '/knowledge');
  assert.equal(notificationLink({ kind: 'sandbox_session_removed', payload: { session_id: 's1' } }), '/chat/s1');
  assert.equal(notificationLink({ kind: 'budget_threshold', payload: {} }), '/admin/usage');
  assert.equal(notificationLink({ kind: 'device_revoked', payload: {} }), null);
});

test('ago and the /notifications route', () => {
  const now = Date.parse('2026-05-01T12:00:00Z');
  assert.equal(ago('2026-05-01T11:59:30Z', now), 'just now');
  assert.equal(ago('2026-05-01T11:45:00Z', now), '15 min ago');
  assert.equal(ago('2026-05-01T09:00:00Z', now), '3 h ago');
  assert.deepEqual(route('/notifications'), { page: 'notifications', param: null });
});
