/** Which `Host` the gateway answers (issue 11 item 9): loopback names, the public host, allowed names. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allowedHostSet, hostAllowed, hostName } from '../../../services/gateway/src/domain/host.js';

test('host names are read without port, brackets, case or trailing dot', () => {
  assert.equal(hostName('LocalHost:8080'), 'localhost');
  assert.equal(hostName('[::1]:8080'), '::1');
  assert.equal(hostName('workstation.lan.'), 'workstation.lan');
});

test('loopback names, the public URL host, the bind address and configured names pass; others are refused', () => {
  const allowed = allowedHostSet('https://ws.example.org:8443', '192.168.1.20', ['Workstation.LAN']);
  for (const h of ['localhost:8080', '127.0.0.1:8080', '127.3.4.5', '[::1]:8080', 'app.localhost', 'ws.example.org:8443', '192.168.1.20:8080', 'workstation.lan', undefined]) {
    assert.equal(hostAllowed(h, allowed), true, String(h));
  }
  for (const h of ['evil.example', 'evil.example:8080', '127.0.0.1.evil.example', 'localhost.evil.example', '10.0.0.1', '[::2]']) {
    assert.equal(hostAllowed(h, allowed), false, h);
  }
  assert.equal(allowedHostSet('http://127.0.0.1:8080', '0.0.0.0', []).has('0.0.0.0'), false, 'a wildcard bind address is not a name');
});
