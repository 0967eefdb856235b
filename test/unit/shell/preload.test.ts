/** The preload bridge: a frozen object whose methods invoke exactly the shared channels. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBridge } from '../../../main/preload/preload.cjs';
import { CHANNELS } from '../../../main/ipc/common/channels.js';

test('window.desktop maps each method to its svc: channel and unwraps answers', async () => {
  const calls: Array<[string, unknown]> = [];
  const answers: Record<string, unknown> = {
    [CHANNELS.connectionInfo]: { gatewayUrl: 'http://127.0.0.1:8080' },
    [CHANNELS.keychainGet]: { value: 'rt' },
    [CHANNELS.keychainSet]: { ok: true },
    [CHANNELS.keychainDelete]: { ok: true },
    [CHANNELS.installerHandoff]: { handoff_id: 'h' },
    [CHANNELS.openExternal]: { opened: false },
    [CHANNELS.saveFile]: { path: '/tmp/x.json' },
    [CHANNELS.signIn]: { access_token: 'at', refresh_token: 'rt', token_type: 'Bearer', expires_in: 300 },
  };
  const b = createBridge({ invoke: async (ch, p) => { calls.push([ch, p]); return answers[ch]; } });
  assert.equal(b.isDesktop, true);
  assert.ok(Object.isFrozen(b) && Object.isFrozen(b.keychain));
  assert.equal((await b.connectionInfo()).gatewayUrl, 'http://127.0.0.1:8080');
  assert.equal(await b.keychain.get('refresh_token'), 'rt');
  await b.keychain.set('refresh_token', 'v');
  await b.keychain.delete('refresh_token');
  assert.equal(await b.takeInstallerHandoff(), 'h');
  assert.equal(await b.openExternal('https://github.com/'), false);
  assert.deepEqual(await b.saveFile({ suggestedName: 'r.json', content: '{}' }), { path: '/tmp/x.json' });
  assert.equal((await b.signIn()).refresh_token, 'rt');
  assert.deepEqual(calls.map((c) => c[0]), [
    CHANNELS.connectionInfo, CHANNELS.keychainGet, CHANNELS.keychainSet, CHANNELS.keychainDelete, CHANNELS.installerHandoff, CHANNELS.openExternal, CHANNELS.saveFile, CHANNELS.signIn,
  ]);
  assert.deepEqual(calls[2]![1], { name: 'refresh_token', value: 'v' });
  for (const [ch] of calls) assert.ok(ch.startsWith('svc:'));
});
