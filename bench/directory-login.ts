/**
 * Directory sign-in figures (issue 15 "Figures": "Directory login against slapd vs local password
 * login: report both"), side by side in one run: the whole stack (supervisor, every service in a
 * worker thread) with DIRAUTH_* pointing at a private Debian slapd (test/helpers/slapd.ts), the
 * password hash at the production cost (scrypt N = 32768). Logins go through the gateway's
 * `POST /v1/auth/login` one at a time over loopback, alternating a local account (scrypt verify) and
 * a directory user (auth -> dirauth -> LDAP search as the service account, bind as the user, group
 * search, provisioning update), and report p50 and p95 of each.
 *
 * Alone: `node dist/bench/directory-login.js` (after `npm run build`; needs slapd).
 */
import { pct, runIfEntry } from './support/measure.js';
import { ADMIN, startStack } from '../test/helpers/stack.js';
import { LDAP_USERS, slapdMissing, startSlapd } from '../test/helpers/slapd.js';
import type { Figure } from './audit.js';

/** Logins of each kind (after a warm-up of each). */
const SAMPLES = 40;

async function timedLogin(url: string, username: string, password: string): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`login of ${username} answered ${r.status}`);
  return performance.now() - t0;
}

/** Run the benchmark; see the file header. */
export async function main(): Promise<Figure[]> {
  const missing = slapdMissing();
  if (missing) {
    console.log(`directory-login: skipped, ${missing}`);
    return [];
  }
  const slapd = await startSlapd();
  const stack = await startStack({ ...slapd.env, SVC_SCRYPT_N: '32768', SVC_GROUP_ROLE_MAP: 'Platform Admins:admin', SVC_RATE_LIMIT_IP_PER_MINUTE: '100000' });
  try {
    await timedLogin(stack.url, ADMIN.email, ADMIN.password);
    await timedLogin(stack.url, 'alice', LDAP_USERS.alice.password);
    const local: number[] = [];
    const directory: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      local.push(await timedLogin(stack.url, ADMIN.email, ADMIN.password));
      directory.push(await timedLogin(stack.url, 'alice', LDAP_USERS.alice.password));
    }
    return [
      { name: 'local password login through the gateway (scrypt N=32768), p50', value: pct(local, 50), unit: 'ms' },
      { name: 'local password login through the gateway (scrypt N=32768), p95', value: pct(local, 95), unit: 'ms' },
      { name: 'directory login through the gateway (slapd search + bind + groups), p50', value: pct(directory, 50), unit: 'ms' },
      { name: 'directory login through the gateway (slapd search + bind + groups), p95', value: pct(directory, 95), unit: 'ms' },
    ];
  } finally {
    await stack.stop();
    await slapd.dispose();
  }
}

await runIfEntry(import.meta.url, main);
