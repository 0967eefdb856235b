/** IPC validation and the handlers behind it: channel prefix, sender frame, origin, payloads. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNELS } from '../../../main/ipc/common/channels.js';
import { IpcValidationError, checkChannel, checkPayload, checkSender } from '../../../main/ipc/validate.js';
import { registerIpc, type ShellServices } from '../../../main/ipc/handlers.js';
import { isAppUrl } from '../../../main/app/security.js';

const top = (url = 'app://svc/chat') => ({ senderFrame: { url, parent: null } });
const code = (fn: () => unknown): string => {
  try { fn(); } catch (e) { assert.ok(e instanceof IpcValidationError); return e.code; }
  return 'none';
};

test('channels: one prefix, known names only', () => {
  for (const c of Object.values(CHANNELS)) assert.ok(c.startsWith('svc:'));
  assert.equal(code(() => checkChannel('svc:connection-info')), 'none');
  assert.equal(code(() => checkChannel('svc:shell-exec')), 'bad_channel');
  assert.equal(code(() => checkChannel('other:connection-info')), 'bad_channel');
});

test('sender: the app origin, top frame only', () => {
  assert.equal(code(() => checkSender(top(), isAppUrl)), 'none');
  assert.equal(code(() => checkSender(top('https://evil.example/'), isAppUrl)), 'bad_origin');
  assert.equal(code(() => checkSender(top('file:///tmp/x.html'), isAppUrl)), 'bad_origin');
  assert.equal(code(() => checkSender({ senderFrame: { url: 'app://svc/', parent: {} } }, isAppUrl)), 'bad_sender');
  assert.equal(code(() => checkSender({ senderFrame: null }, isAppUrl)), 'bad_sender');
});

test('payloads: exact shapes, closed secret names, plain file names, size limits', () => {
  assert.equal(checkPayload(CHANNELS.connectionInfo, undefined), undefined);
  assert.equal(code(() => checkPayload(CHANNELS.connectionInfo, { x: 1 })), 'bad_payload');
  assert.deepEqual(checkPayload(CHANNELS.keychainGet, { name: 'refresh_token' }), { name: 'refresh_token' });
  assert.equal(code(() => checkPayload(CHANNELS.keychainGet, { name: 'github_token' })), 'bad_payload');
  assert.equal(code(() => checkPayload(CHANNELS.keychainGet, { name: 'refresh_token', extra: 1 })), 'bad_payload');
  assert.equal(code(() => checkPayload(CHANNELS.keychainSet, { name: 'refresh_token', value: '' })), 'bad_payload');
  assert.equal(code(() => checkPayload(CHANNELS.keychainSet, { name: 'refresh_token', value: 'x'.repeat(20_000) })), 'bad_payload');
  assert.deepEqual(checkPayload(CHANNELS.saveFile, { suggestedName: 'receipt-01.json', content: '{}', filter: { name: 'JSON', extensions: ['json'] } }),
    { suggestedName: 'receipt-01.json', content: '{}', filter: { name: 'JSON', extensions: ['json'] } });
  for (const name of ['../x.json', '/etc/passwd', 'a\\b', 'C:x', '..', '', 'x'.repeat(201)]) {
    assert.equal(code(() => checkPayload(CHANNELS.saveFile, { suggestedName: name, content: '' })), 'bad_payload', name);
  }
  assert.equal(code(() => checkPayload(CHANNELS.saveFile, { suggestedName: 'a.json', content: 1 })), 'bad_payload');
  assert.equal(code(() => checkPayload(CHANNELS.saveFile, { suggestedName: 'a.json', content: '', filter: { name: 'x', extensions: ['../sh'] } })), 'bad_payload');
  assert.equal(code(() => checkPayload(CHANNELS.openExternal, { url: 42 })), 'bad_payload');
});

function fakeIpc() {
  const handlers = new Map<string, (e: unknown, ...a: unknown[]) => unknown>();
  return {
    handlers,
    handle: (ch: string, fn: (e: never, ...a: unknown[]) => unknown) => { handlers.set(ch, fn as (e: unknown, ...a: unknown[]) => unknown); },
    removeHandler: (ch: string) => { handlers.delete(ch); },
  };
}

test('registered handlers validate, call the service, and leak nothing on failure', async () => {
  const store = new Map<string, string>();
  const opened: string[] = [];
  const services: ShellServices = {
    connectionInfo: () => ({ gatewayUrl: 'http://127.0.0.1:8080', appVersion: '0.1.0', platform: 'linux', secretStore: 'encrypted-file' }),
    saveFile: async () => { throw new Error('EACCES: /home/me/secret path'); },
    secrets: { get: async (n) => store.get(n) ?? null, set: async (n, v) => { store.set(n, v); }, delete: async (n) => { store.delete(n); } },
    takeInstallerHandoff: async () => null,
    openExternal: async (u) => { opened.push(u); return true; },
    signIn: async () => ({ access_token: 'at', refresh_token: 'rt', token_type: 'Bearer', expires_in: 300 }),
  };
  const ipc = fakeIpc();
  const logs: string[] = [];
  const off = registerIpc(ipc, services, isAppUrl, (m) => logs.push(m));
  assert.equal(ipc.handlers.size, Object.keys(CHANNELS).length);
  const call = (ch: string, e: unknown, p?: unknown) => Promise.resolve(ipc.handlers.get(ch)!(e, p));

  assert.deepEqual(await call(CHANNELS.keychainSet, top(), { name: 'refresh_token', value: 'rt1' }), { ok: true });
  assert.deepEqual(await call(CHANNELS.keychainGet, top(), { name: 'refresh_token' }), { value: 'rt1' });
  assert.equal(((await call(CHANNELS.connectionInfo, top())) as { gatewayUrl: string }).gatewayUrl, 'http://127.0.0.1:8080');
  assert.equal(((await call(CHANNELS.signIn, top())) as { refresh_token: string }).refresh_token, 'rt');
  await assert.rejects(call(CHANNELS.signIn, top(), { redirect_uri: 'https://evil.example/' }), /^Error: bad_payload$/);
  await assert.rejects(call(CHANNELS.keychainGet, top('https://evil.example/'), { name: 'refresh_token' }), /^Error: bad_origin$/);
  await assert.rejects(call(CHANNELS.keychainGet, { senderFrame: { url: 'app://svc/', parent: {} } }, { name: 'refresh_token' }), /bad_sender/);
  await assert.rejects(call(CHANNELS.saveFile, top(), { suggestedName: 'a.json', content: '{}' }), (e: Error) => e.message === 'internal_error');
  assert.ok(logs.some((l) => l.includes('EACCES')), 'the cause is logged in main, not sent to the renderer');
  off();
  assert.equal(ipc.handlers.size, 0);
});
