/**
 * Embedded IdP sign-in figure (issue 15 "Figures": "Authorization code + PKCE sign-in, full round
 * trip on loopback: report p50"), against the whole stack under the supervisor (eleven worker
 * threads, the gateway in front), the password hash at the production cost (scrypt N = 32768):
 *  - one PKCE round trip: authorization request -> the interaction's sign-in page -> its login post
 *    -> resume -> redirect with the code -> token request (test/helpers/idp-pkce.ts plays the browser),
 *    p50 and p95;
 *  - beside it, in alternating rounds, today's password login (`POST /v1/auth/login`), p50 and p95:
 *    both are dominated by the one password verification.
 *
 * Alone: `node dist/bench/idp-pkce.js` (after `npm run build`); in `npm run bench` with the others.
 */
import { performance } from 'node:perf_hooks';
import { ADMIN, login, startStack } from '../test/helpers/stack.js';
import { pkceSignIn } from '../test/helpers/idp-pkce.js';
import { pct, runIfEntry } from './support/measure.js';
import type { Figure } from './audit.js';

/** Samples of each kind (after `WARMUP` unmeasured ones), in `ROUNDS` alternating rounds. */
const SAMPLES = 40;
const WARMUP = 3;
const ROUNDS = 4;
/** The production password hash cost (main/config default `SVC_SCRYPT_N`). */
const SCRYPT_N = '32768';

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Run the benchmark; @returns its figures. */
export async function main(): Promise<Figure[]> {
  const stack = await startStack({ SVC_SCRYPT_N: SCRYPT_N });
  try {
    const pkce: number[] = [];
    const password: number[] = [];
    for (let i = 0; i < WARMUP; i++) {
      await pkceSignIn(stack.url, ADMIN.email, ADMIN.password);
      await login(stack.url, ADMIN.email, ADMIN.password);
    }
    const perRound = Math.ceil(SAMPLES / ROUNDS);
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < perRound; i++) pkce.push(await timed(() => pkceSignIn(stack.url, ADMIN.email, ADMIN.password)));
      for (let i = 0; i < perRound; i++) password.push(await timed(() => login(stack.url, ADMIN.email, ADMIN.password)));
    }
    const figures: Figure[] = [
      { name: 'idp: authorization code + PKCE round trip p50 (loopback, scrypt N=32768)', value: pct(pkce, 50), unit: 'ms' },
      { name: 'idp: authorization code + PKCE round trip p95', value: pct(pkce, 95), unit: 'ms' },
      { name: 'idp: beside it, POST /v1/auth/login p50', value: pct(password, 50), unit: 'ms' },
      { name: 'idp: beside it, POST /v1/auth/login p95', value: pct(password, 95), unit: 'ms' },
    ];
    for (const f of figures) console.log(`${f.name.padEnd(74)} ${f.value.toFixed(1).padStart(8)} ${f.unit}`);
    return figures;
  } finally {
    await stack.stop();
  }
}

await runIfEntry(import.meta.url, main);
