/**
 * A private Dovecot IMAP server for tests (issue 18 item 3): runs as the current user with a
 * generated config (plaintext IMAP on an ephemeral loopback port, no SSL), one passwd-file user
 * and a Maildir under a temp directory. With `accessToken`, the server also takes SASL XOAUTH2 /
 * OAUTHBEARER: Dovecot's own `oauth2` passdb validates the token at a token-info endpoint this helper
 * serves on loopback (the stand-in for a mail provider's authorization server), which answers the
 * user for that one token and 401 for any other. Needs Debian's `dovecot-imapd` (/usr/sbin/dovecot).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { freePort } from './ports.js';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const DOVECOT = ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'].find((p) => existsSync(p)) ?? null;

/** Why dovecot cannot run here, or null when it can (tests skip with this reason). */
export function dovecotMissing(): string | null {
  return DOVECOT ? null : 'dovecot is not installed (apt-get install dovecot-imapd)';
}

/** A running Dovecot. */
export interface Dovecot {
  host: string;
  port: number;
  user: string;
  password: string;
  /** How many times Dovecot asked the token-info endpoint (with `accessToken`). */
  tokenChecks(): number;
  /** Stop the server and delete its files. */
  dispose(): Promise<void>;
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((res) => {
      const c = createConnection({ host: '127.0.0.1', port }, () => { c.destroy(); res(true); });
      c.once('error', () => res(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`dovecot did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A token-info endpoint: `GET /tokeninfo?access_token=<token>` -> 200 `{username, active: true}` for `token` only. */
async function tokenInfo(token: string, user: string): Promise<{ server: Server; port: number; count: () => number }> {
  let n = 0;
  const server = createHttpServer((req, res) => {
    n++;
    const got = new URL(req.url ?? '/', 'http://x').searchParams.get('access_token') ?? (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (got === token) { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ username: user, active: true })); return; }
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, count: () => n };
}

/**
 * Start a Dovecot with user `user`/`password` (and, with `accessToken`, that OAuth access token).
 * @throws Error when dovecot is missing or does not start.
 */
export async function startDovecot(user = 'mailuser', password = 'mail-user-password', accessToken?: string): Promise<Dovecot> {
  if (!DOVECOT) throw new Error(dovecotMissing()!);
  const info = accessToken ? await tokenInfo(accessToken, user) : null;
  const dir = mkdtempSync(join(tmpdir(), 'dovecot-'));
  for (const d of ['run', 'state', 'mail', 'home']) mkdirSync(join(dir, d));
  const me = userInfo();
  const group = execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim();
  // Dovecot refuses to run its login and internal processes as root: as root they use its system users.
  const root = me.uid === 0;
  const loginUser = root ? 'dovenull' : me.username;
  // Mail is never accessed as root: as root the mail user is dovecot's own account.
  let mailUid = me.uid;
  let mailGid = me.gid;
  if (root) {
    chmodSync(dir, 0o755);
    mailUid = Number(execFileSync('id', ['-u', 'dovecot'], { encoding: 'utf8' }).trim());
    mailGid = Number(execFileSync('id', ['-g', 'dovecot'], { encoding: 'utf8' }).trim());
    for (const d of ['mail', 'home']) chownSync(join(dir, d), mailUid, mailGid);
  }
  const internalUser = root ? 'dovecot' : me.username;
  const port = await freePort();
  writeFileSync(join(dir, 'passwd'), `${user}:{PLAIN}${password}:${mailUid}:${mailGid}::${join(dir, 'home', user)}::\n`);
  if (info) {
    writeFileSync(join(dir, 'oauth2.conf'), [
      `tokeninfo_url = http://127.0.0.1:${info.port}/tokeninfo?access_token=`, 'username_attribute = username',
      'active_attribute = active', 'active_value = true', '',
    ].join('\n'));
  }
  writeFileSync(join(dir, 'dovecot.conf'), [
    'protocols = imap', 'listen = 127.0.0.1', `base_dir = ${join(dir, 'run')}`, `state_dir = ${join(dir, 'state')}`,
    `log_path = ${join(dir, 'dovecot.log')}`, 'ssl = no', 'disable_plaintext_auth = no', `auth_mechanisms = plain login${info ? ' xoauth2 oauthbearer' : ''}`,
    `default_internal_user = ${internalUser}`, `default_login_user = ${loginUser}`, ...(root ? [] : [`default_internal_group = ${group}`]),
    `mail_location = maildir:${join(dir, 'mail')}/%u`, 'mail_privileged_group =', `first_valid_uid = ${mailUid}`, `first_valid_gid = ${mailGid}`,
    `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
    'service anvil {\n  chroot =\n}', 'service imap-login {\n  chroot =\n}', 'service stats {\n  chroot =\n}',
    `passdb {\n  driver = passwd-file\n  args = ${join(dir, 'passwd')}\n  mechanisms = plain login\n}`,
    ...(info ? [`passdb {\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n  args = ${join(dir, 'oauth2.conf')}\n}`] : []),
    `userdb {\n  driver = passwd-file\n  args = ${join(dir, 'passwd')}\n}`,
    'namespace inbox {\n  inbox = yes\n  separator = /\n}',
    '',
  ].join('\n'));
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => { stderr += b.toString(); });
  try {
    await waitForPort(port, 10_000);
  } catch (err) {
    child.kill('SIGTERM');
    info?.server.close();
    throw new Error(`${(err as Error).message}: ${stderr}`);
  }
  return {
    host: '127.0.0.1', port, user, password, tokenChecks: () => info?.count() ?? 0,
    async dispose() {
      info?.server.close();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      }
      if (!process.env.KEEP_DOVECOT) rmSync(dir, { recursive: true, force: true });
    },
  };
}
