/** Shell security policy: app origin, navigation, external links, window options, permissions, CSP. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  APP_CSP, externalAllowed, isAppUrl, mainWindowOptions, navigationAllowed, permissionAllowed, windowOpenDecision,
} from '../../../main/app/security.js';

test('only app://svc is the app origin', () => {
  assert.equal(isAppUrl('app://svc/'), true);
  assert.equal(isAppUrl('app://svc/chat/01ABC?x=1#y'), true);
  for (const u of ['app://evil/', 'https://svc/', 'file:///etc/passwd', 'app://user:pw@svc/', 'app://svc.evil.com/', 'javascript:alert(1)', 'not a url', '']) {
    assert.equal(isAppUrl(u), false, u);
  }
});

test('navigation stays inside the app', () => {
  assert.equal(navigationAllowed('app://svc/receipts'), true);
  for (const u of ['https://github.com/', 'http://127.0.0.1:8080/', 'file:///tmp/x.html', 'data:text/html,<script>1</script>', 'about:blank']) {
    assert.equal(navigationAllowed(u), false, u);
  }
});

test('openExternal only for allow-listed https hosts and mailto', () => {
  assert.equal(externalAllowed('https://github.com/org/repo'), true);
  assert.equal(externalAllowed('https://docs.github.com/en'), true);
  assert.equal(externalAllowed('mailto:someone@example.com'), true);
  assert.equal(externalAllowed('mailto:someone@example.com?subject=Receipt'), true);
  for (const u of [
    'http://github.com/', 'https://github.com.evil.com/', 'https://evilgithub.com/', 'https://user:pw@github.com/', 'https://github.com:8443/',
    'file:///C:/Windows/System32/calc.exe', 'smb://host/share', 'ms-msdt:/id', 'javascript:alert(1)', 'mailto:a@b.c?attach=/etc/passwd&x=@', 'garbage',
  ]) {
    assert.equal(externalAllowed(u), false, u);
  }
  assert.equal(externalAllowed('https://example.org/x', ['example.org']), true);
  assert.equal(externalAllowed('mailto:a@b.c', [], false), false);
});

test('window.open is always denied; allowed links go to the system browser', () => {
  assert.deepEqual(windowOpenDecision('https://github.com/x'), { action: 'deny', openExternal: true });
  assert.deepEqual(windowOpenDecision('app://svc/other'), { action: 'deny', openExternal: false });
  assert.deepEqual(windowOpenDecision('https://evil.example/'), { action: 'deny', openExternal: false });
});

test('the main window is isolated and sandboxed, with no Node integration', () => {
  const o = mainWindowOptions('/x/preload.cjs');
  const w = o.webPreferences;
  assert.equal(w.contextIsolation, true);
  assert.equal(w.sandbox, true);
  assert.equal(w.nodeIntegration, false);
  assert.equal(w.nodeIntegrationInWorker, false);
  assert.equal(w.nodeIntegrationInSubFrames, false);
  assert.equal(w.webSecurity, true);
  assert.equal(w.allowRunningInsecureContent, false);
  assert.equal(w.webviewTag, false);
  assert.equal(w.devTools, false);
  assert.equal(w.preload, '/x/preload.cjs');
  assert.equal(o.show, false);
});

test('permissions: deny by default; clipboard write only for the app origin', () => {
  assert.equal(permissionAllowed('clipboard-sanitized-write', 'app://svc/chat'), true);
  assert.equal(permissionAllowed('clipboard-sanitized-write', 'https://evil.example/'), false);
  for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen', 'hid', 'serial', 'usb']) {
    assert.equal(permissionAllowed(p, 'app://svc/'), false, p);
  }
  assert.equal(permissionAllowed('clipboard-sanitized-write', undefined), false);
});

test('the app CSP has no inline or remote script and no remote connections', () => {
  assert.match(APP_CSP, /default-src 'self'/);
  assert.match(APP_CSP, /script-src 'self'(;|$)/);
  assert.match(APP_CSP, /connect-src 'self'(;|$)/);
  assert.match(APP_CSP, /object-src 'none'/);
  assert.match(APP_CSP, /frame-ancestors 'none'/);
  assert.doesNotMatch(APP_CSP, /unsafe-eval|script-src[^;]*unsafe-inline|https?:/);
});
