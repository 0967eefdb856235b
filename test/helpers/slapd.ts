/**
 * A private OpenLDAP `slapd` for tests (issue 15 item 3): a generated slapd.conf (mdb backend,
 * suffix dc=example,dc=test, no overlays), data loaded with `slapadd` from
 * test/fixtures/ldap/directory.ldif, listening on an ephemeral loopback port; optionally with a
 * throwaway CA and server certificate for StartTLS and a second, LDAPS listener. Needs Debian's `slapd` (and `openssl` for TLS).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { freePort } from './ports.js';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Suffix of the test directory. */
export const LDAP_SUFFIX = 'dc=example,dc=test';
/** The search account of the fixture. */
export const LDAP_SEARCH = { dn: 'cn=search,ou=system,dc=example,dc=test', password: 'search-account-secret' };
/** Users of the fixture. */
export const LDAP_USERS = {
  alice: { uid: 'alice', email: 'alice@example.test', password: 'alice-directory-pass', groups: ['Engineering', 'Platform Admins'] },
  bob: { uid: 'bob', email: 'bob@example.test', password: 'bob-directory-pass', groups: ['Engineering'] },
  nomail: { uid: 'nomail', password: 'nomail-directory-pass' },
  clash: { uid: 'clash', email: 'admin@example.com', password: 'clash-directory-pass' },
} as const;

const SLAPD = ['/usr/sbin/slapd', '/usr/local/sbin/slapd'].find((p) => existsSync(p)) ?? null;
const SLAPADD = ['/usr/sbin/slapadd', '/usr/local/sbin/slapadd'].find((p) => existsSync(p)) ?? null;

/** Why slapd cannot run here, or null when it can (tests skip with this reason). */
export function slapdMissing(): string | null {
  if (!SLAPD || !SLAPADD) return 'slapd is not installed (apt-get install slapd ldap-utils)';
  return null;
}

/** A running slapd. */
export interface Slapd {
  /** `ldap://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** PEM CA file that signed the server certificate (StartTLS and LDAPS), when started with `tls`. */
  caFile: string | null;
  /** `ldaps://127.0.0.1:<port>` when started with `tls`. */
  ldapsUrl: string | null;
  /** `DIRAUTH_*` variables for a stack using this directory. */
  env: Record<string, string>;
  /** Stop the server (the data stays, so `start()` brings it back on the same port). */
  stop(): Promise<void>;
  /** Start it again after `stop()`. */
  start(): Promise<void>;
  /** Stop and delete everything. */
  dispose(): Promise<void>;
}

async function waitListening(port: number, proc: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`slapd exited with ${proc.exitCode}`);
    const ok = await new Promise<boolean>((res) => {
      const c = createConnection({ port, host: '127.0.0.1' });
      c.once('connect', () => { c.destroy(); res(true); });
      c.once('error', () => res(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('slapd did not start listening');
}

function makeCerts(dir: string): { ca: string; cert: string; key: string } {
  const ca = join(dir, 'ca.pem'), caKey = join(dir, 'ca.key'), key = join(dir, 'server.key'), csr = join(dir, 'server.csr'), cert = join(dir, 'server.pem');
  const ext = join(dir, 'san.cnf');
  const run = (args: string[]): void => { execFileSync('openssl', args, { stdio: 'ignore' }); };
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', caKey, '-out', ca, '-days', '2', '-subj', '/CN=svc test LDAP CA']);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', '/CN=127.0.0.1']);
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-out', cert, '-days', '2', '-extfile', ext]);
  return { ca, cert, key };
}

/**
 * Start a private slapd loaded with the fixture.
 * @param opts.tls generate a CA and server certificate and offer StartTLS.
 * @throws Error when slapd is missing or does not start.
 */
export async function startSlapd(opts: { tls?: boolean } = {}): Promise<Slapd> {
  const missing = slapdMissing();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'svc-slapd-'));
  mkdirSync(join(dir, 'db'));
  const certs = opts.tls ? makeCerts(dir) : null;
  const conf = join(dir, 'slapd.conf');
  writeFileSync(conf, [
    'include /etc/ldap/schema/core.schema',
    'include /etc/ldap/schema/cosine.schema',
    'include /etc/ldap/schema/inetorgperson.schema',
    'include /etc/ldap/schema/nis.schema',
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `pidfile ${join(dir, 'slapd.pid')}`,
    ...(certs ? [`TLSCACertificateFile ${certs.ca}`, `TLSCertificateFile ${certs.cert}`, `TLSCertificateKeyFile ${certs.key}`] : []),
    'database mdb',
    'maxsize 33554432',
    `suffix "${LDAP_SUFFIX}"`,
    `rootdn "cn=admin,${LDAP_SUFFIX}"`,
    'rootpw admin-root-secret',
    `directory ${join(dir, 'db')}`,
    'access to attrs=userPassword by self =xw by anonymous auth by * none',
    'access to * by users read by anonymous auth',
    '',
  ].join('\n'));
  const ldif = resolve(process.cwd(), 'test/fixtures/ldap/directory.ldif');
  execFileSync(SLAPADD!, ['-q', '-f', conf, '-l', ldif], { stdio: 'pipe' });
  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = certs ? `ldaps://127.0.0.1:${await freePort()}` : null;
  let proc: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    // -d 0: stay in the foreground (so the test owns the process) and log nothing.
    proc = spawn(SLAPD!, ['-f', conf, '-h', ldapsUrl ? `${url}/ ${ldapsUrl}/` : `${url}/`, '-d', '0'], { stdio: 'ignore' });
    await waitListening(port, proc);
  };
  const stop = async (): Promise<void> => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((res) => { p.once('exit', () => res()); p.kill('SIGTERM'); });
  };
  await start();
  const env: Record<string, string> = {
    DIRAUTH_LDAP_URL: url,
    DIRAUTH_LDAP_BIND_DN: LDAP_SEARCH.dn,
    DIRAUTH_LDAP_BIND_PASSWORD: LDAP_SEARCH.password,
    DIRAUTH_LDAP_USER_BASE: `ou=people,${LDAP_SUFFIX}`,
    DIRAUTH_LDAP_GROUP_BASE: `ou=groups,${LDAP_SUFFIX}`,
    ...(certs ? { DIRAUTH_LDAP_STARTTLS: 'true', DIRAUTH_LDAP_CA_FILE: certs.ca } : {}),
  };
  return {
    url, port, caFile: certs?.ca ?? null, ldapsUrl, env, stop, start,
    dispose: async () => { await stop(); rmSync(dir, { recursive: true, force: true }); },
  };
}
