/**
 * IMAP connector end to end (issue 18 item 3) against a real Dovecot (test/helpers/dovecot.ts):
 * the password comes from the tenant secret store; a message with an attachment is synced and both
 * its body and the attachment's text are searchable; a second sync takes only the new message;
 * a check with a wrong password says so clearly (and never echoes the password); a server address on
 * the workstation's own service port is refused by the outbound guard; a connector signing in with an
 * OAuth access token from the secret store (SASL XOAUTH2, checked by Dovecot's oauth2 passdb) reads the
 * same mailbox, and a wrong token is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImapFlow } from 'imapflow';
import { ADMIN, callJson, login, startStack } from '../helpers/stack.js';
import { dovecotMissing, startDovecot } from '../helpers/dovecot.js';
import { search, syncAndWait } from '../helpers/connectors.js';

function mime(subject: string, body: string, attachment?: { name: string; text: string }): string {
  const head = `From: Sender <sender@example.test>\r\nTo: mailuser@example.test\r\nSubject: ${subject}\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n`;
  if (!attachment) return `${head}Content-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;
  const b = 'b-' + Math.random().toString(16).slice(2);
  return `${head}Content-Type: multipart/mixed; boundary="${b}"\r\n\r\n--${b}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`
    + `--${b}\r\nContent-Type: text/markdown; name="${attachment.name}"\r\nContent-Disposition: attachment; filename="${attachment.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n`
    + `${Buffer.from(attachment.text).toString('base64')}\r\n--${b}--\r\n`;
}

test('an IMAP connector indexes messages and attachments, incrementally', { skip: dovecotMissing() ?? false, timeout: 180_000 }, async () => {
  const TOKEN = 'imap-oauth-access-token-7f3a9c';
  const mail = await startDovecot(undefined, undefined, TOKEN);
  const stack = await startStack();
  try {
    const imap = new ImapFlow({ host: mail.host, port: mail.port, secure: false, auth: { user: mail.user, pass: mail.password }, logger: false });
    await imap.connect();
    await imap.append('INBOX', mime('Vendor contract', 'The vendor agreed to the pelargonium discount.', { name: 'terms.md', text: '# Terms\n\nPayment within quokkaberry days.\n' }));

    const admin = await login(stack.url, ADMIN.email, ADMIN.password);
    assert.equal((await callJson(stack.url, admin, 'PUT', '/v1/admin/tenant-secrets/imap-pass', { value: mail.password })).status, 201);
    assert.equal((await callJson(stack.url, admin, 'PUT', '/v1/admin/tenant-secrets/imap-wrong', { value: 'not-the-password' })).status, 201);
    const config = { host: mail.host, port: mail.port, tls: false, username: mail.user, password_secret: 'imap-pass' };
    const created = await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', { kind: 'imap', name: 'Mailbox', config });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.config.password_secret, 'imap-pass');
    assert.ok(!JSON.stringify(created.body).includes(mail.password));
    const id = created.body.id as string;

    const good = await callJson(stack.url, admin, 'POST', `/v1/admin/context/connectors/${id}/check`);
    assert.equal(good.body.ok, true, JSON.stringify(good.body));
    const bad = await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', { kind: 'imap', name: 'Wrong', config: { ...config, password_secret: 'imap-wrong' } });
    const badCheck = await callJson(stack.url, admin, 'POST', `/v1/admin/context/connectors/${bad.body.id}/check`);
    assert.equal(badCheck.body.ok, false);
    assert.match(badCheck.body.error, /authentication failed/);
    assert.ok(!JSON.stringify(badCheck.body).includes('not-the-password'));

    // The mail server's address passes the outbound guard: the workstation's own service port is refused.
    const own = await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', { kind: 'imap', name: 'Own', config: { ...config, port: Number(new URL(stack.url).port) } });
    const ownCheck = await callJson(stack.url, admin, 'POST', `/v1/admin/context/connectors/${own.body.id}/check`);
    assert.equal(ownCheck.body.ok, false);
    assert.match(ownCheck.body.error, /not allowed/);

    const surfaces = await callJson(stack.url, admin, 'GET', `/v1/admin/context/connectors/${id}/surfaces`);
    assert.ok(surfaces.body.surfaces.some((s: { id: string; selected: boolean }) => s.id === 'INBOX' && s.selected), JSON.stringify(surfaces.body));

    const first = await syncAndWait(stack.url, admin, id);
    assert.equal(first.state, 'succeeded');
    assert.deepEqual(first.progress, { total: 1, done: 1, failed: 0 });
    assert.ok((await search(stack.url, admin, 'pelargonium discount')).some((t) => t.includes('pelargonium')), 'the body is searchable');
    assert.ok((await search(stack.url, admin, 'quokkaberry days')).some((t) => t.includes('quokkaberry')), 'the attachment is searchable');
    const docs = await callJson(stack.url, admin, 'GET', `/v1/admin/context/connectors/${id}/documents`);
    assert.equal(docs.body.documents.length, 2, JSON.stringify(docs.body));

    await imap.append('INBOX', mime('Follow-up', 'A second note about the tamarillo shipment.'));
    await imap.logout();
    const second = await syncAndWait(stack.url, admin, id);
    assert.deepEqual(second.progress, { total: 1, done: 1, failed: 0 }, 'only the new message');
    assert.ok((await search(stack.url, admin, 'tamarillo shipment')).some((t) => t.includes('tamarillo')));
    const failedSync = await syncAndWait(stack.url, admin, bad.body.id);
    assert.equal(failedSync.state, 'failed');
    const badView = await callJson(stack.url, admin, 'GET', `/v1/admin/context/connectors/${bad.body.id}`);
    assert.equal(badView.body.status, 'error');
    assert.match(badView.body.last_error, /authentication failed/);

    // The same mailbox through an OAuth access token (SASL XOAUTH2) instead of a password.
    assert.equal((await callJson(stack.url, admin, 'PUT', '/v1/admin/tenant-secrets/imap-token', { value: TOKEN })).status, 201);
    assert.equal((await callJson(stack.url, admin, 'PUT', '/v1/admin/tenant-secrets/imap-token-wrong', { value: 'expired-token' })).status, 201);
    const { password_secret: _unused, ...noPassword } = config;
    const both = await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', { kind: 'imap', name: 'Both', config: { ...config, access_token_secret: 'imap-token' } });
    assert.equal(both.status, 400, 'one credential only');
    const viaToken = await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', { kind: 'imap', name: 'Mailbox (OAuth)', config: { ...noPassword, access_token_secret: 'imap-token' } });
    assert.equal(viaToken.status, 201, JSON.stringify(viaToken.body));
    assert.ok(!JSON.stringify(viaToken.body).includes(TOKEN));
    const checks = mail.tokenChecks();
    const tokenCheck = await callJson(stack.url, admin, 'POST', `/v1/admin/context/connectors/${viaToken.body.id}/check`);
    assert.equal(tokenCheck.body.ok, true, JSON.stringify(tokenCheck.body));
    assert.ok(mail.tokenChecks() > checks, 'the server validated the token');
    const tokenSync = await syncAndWait(stack.url, admin, viaToken.body.id);
    assert.equal(tokenSync.state, 'succeeded');
    assert.deepEqual(tokenSync.progress, { total: 2, done: 2, failed: 0 }, 'both messages through the token');
    const wrongToken = await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', { kind: 'imap', name: 'Wrong token', config: { ...noPassword, access_token_secret: 'imap-token-wrong' } });
    const wrongCheck = await callJson(stack.url, admin, 'POST', `/v1/admin/context/connectors/${wrongToken.body.id}/check`);
    assert.equal(wrongCheck.body.ok, false);
    assert.match(wrongCheck.body.error, /authentication failed/);
    assert.ok(!JSON.stringify(wrongCheck.body).includes('expired-token'));
  } finally {
    await stack.stop();
    await mail.dispose();
  }
});
