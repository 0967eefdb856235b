/**
 * `scripts/svc-device`: a small command-line device for the phone second factor (issue 14 item 7;
 * /work/2fa-brief.md "Clients"), for operators and tests. It implements the documented protocol
 * (docs/mobile-2fa.md) with the same routes the phone web app uses.
 *
 * Usage:
 *   svc-device pair <enrollment_url> --state F [--name N] [--insecure]
 *   svc-device pending --state F [--wait S]
 *   svc-device approve <challenge_id> --number N --state F
 *   svc-device deny <challenge_id> --state F
 *   svc-device report <challenge_id> --state F          ("this wasn't me")
 *   svc-device code --state F
 *   svc-device refresh --state F
 *
 * `pair` pins the certificate fingerprint the enrollment URL carries (`fp`) when the URL is https, so a
 * self-signed workstation certificate is accepted only if its SHA-256 matches; `--insecure` accepts any
 * certificate. `pending` prints one JSON line per open challenge `{challenge_id, numbers, user,
 * client_ip, user_agent, expires_at}`. Exit 0 on success; 1 with one line `svc-device: <code>:
 * <message>` on stderr when the workstation refuses (the server's code); 2 on usage errors.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { answerJws, deviceProof, enrollmentClaims, enrollmentProof, newDeviceKey, type Decision } from './device/jws.js';
import { parseEnrollmentUrl } from './device/enrollment-url.js';
import { readState, writeState, type DeviceState } from './device/state.js';
import { totpCode } from './device/totp.js';
import { TransportError, dispatcherFor, requestJson, type JsonAnswer } from './device/transport.js';

/** The commands. */
export type Command = 'pair' | 'pending' | 'approve' | 'deny' | 'report' | 'code' | 'refresh';

/** A parsed command line. */
export interface DeviceArgs {
  command: Command;
  state: string;
  /** `pair`: the enrollment URL; `approve`/`deny`/`report`: the challenge id. */
  target?: string;
  name?: string;
  number?: number;
  insecure: boolean;
  /** `pending`: long-poll seconds (1-25). */
  wait?: number;
}

/** A failure with a stable code: `usage` (exit 2) or a server / transport code (exit 1). */
export class DeviceCliError extends Error {
  constructor(readonly code: string, message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'DeviceCliError';
  }
}

export const USAGE = [
  'usage: svc-device pair <enrollment_url> --state F [--name N] [--insecure]',
  '       svc-device pending --state F [--wait S]',
  '       svc-device approve <challenge_id> --number N --state F',
  '       svc-device deny <challenge_id> --state F',
  '       svc-device report <challenge_id> --state F',
  '       svc-device code --state F',
  '       svc-device refresh --state F',
].join('\n');

const COMMANDS: readonly Command[] = ['pair', 'pending', 'approve', 'deny', 'report', 'code', 'refresh'];
const WITH_TARGET: readonly Command[] = ['pair', 'approve', 'deny', 'report'];
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const usage = (msg: string): DeviceCliError => new DeviceCliError('usage', `${msg}\n${USAGE}`, 2);

/** Parse argv (without node and the script). @throws DeviceCliError `usage` (exit 2). */
export function parseDeviceArgs(argv: readonly string[]): DeviceArgs {
  const positional: string[] = [];
  const opts: Partial<DeviceArgs> = { insecure: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw usage(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '--state': opts.state = value(); break;
      case '--name': opts.name = value(); break;
      case '--insecure': opts.insecure = true; break;
      case '--number': {
        const v = value();
        if (!/^\d{1,3}$/.test(v)) throw usage('--number takes the number shown on the sign-in screen (10-99)');
        opts.number = Number(v);
        break;
      }
      case '--wait': {
        const v = value();
        if (!/^\d{1,2}$/.test(v) || Number(v) < 1 || Number(v) > 25) throw usage('--wait takes 1 to 25 seconds');
        opts.wait = Number(v);
        break;
      }
      case '-h': case '--help': throw usage('help');
      default:
        if (a.startsWith('-')) throw usage(`unknown option ${a}`);
        positional.push(a);
    }
  }
  const command = positional[0] as Command | undefined;
  if (!command || !COMMANDS.includes(command)) throw usage(command ? `unknown command ${command}` : 'give a command');
  const rest = positional.slice(1);
  if (WITH_TARGET.includes(command) ? rest.length !== 1 : rest.length !== 0) {
    throw usage(WITH_TARGET.includes(command) ? `${command} takes one ${command === 'pair' ? 'enrollment URL' : 'challenge id'}` : `${command} takes no argument`);
  }
  if (!opts.state) throw usage('--state F is required');
  if (command === 'approve' && opts.number === undefined) throw usage('approve needs --number N');
  if (command !== 'approve' && opts.number !== undefined) throw usage('--number belongs to approve');
  if (opts.name !== undefined && command !== 'pair') throw usage('--name belongs to pair');
  if (opts.name !== undefined && (opts.name.length < 1 || opts.name.length > 64)) throw usage('--name takes 1 to 64 characters');
  if (opts.insecure && command !== 'pair') throw usage('--insecure belongs to pair (the state file remembers it)');
  if (opts.wait !== undefined && command !== 'pending') throw usage('--wait belongs to pending');
  if (command !== 'pair' && WITH_TARGET.includes(command) && !ULID.test(rest[0]!)) throw usage(`not a challenge id: ${rest[0]}`);
  return { command, state: opts.state, insecure: opts.insecure ?? false, target: rest[0], name: opts.name, number: opts.number, wait: opts.wait };
}

/** What the CLI writes (injected by tests). */
export interface DeviceIo { out(line: string): void; now(): number }

/** The server's refusal as a DeviceCliError (its `code`, else `http_<status>`). */
function refused(a: JsonAnswer): DeviceCliError {
  const code = typeof a.body?.code === 'string' ? a.body.code : `http_${a.status}`;
  const msg = typeof a.body?.error === 'string' ? a.body.error : typeof a.body?.message === 'string' ? a.body.message : `the workstation answered ${a.status}`;
  return new DeviceCliError(code, msg);
}

/** The device-channel audience: `{public_url}/dirauth/pair`. */
const audienceOf = (s: DeviceState): string => `${s.api_base}/dirauth/pair`;

async function pair(args: DeviceArgs, io: DeviceIo): Promise<void> {
  let link;
  try { link = parseEnrollmentUrl(args.target!); } catch (err) { throw usage((err as Error).message); }
  let claims;
  try { claims = enrollmentClaims(link.token); } catch (err) { throw new DeviceCliError('enrollment_token_invalid', (err as Error).message); }
  const https = link.apiBase.startsWith('https:');
  const trust = { fingerprint: https ? link.fingerprint : '', insecure: https && args.insecure };
  const keys = await newDeviceKey();
  const now = Math.floor(io.now() / 1000);
  const proof = await enrollmentProof({ ...claims, name: args.name, ...keys, now });
  const a = await requestJson(dispatcherFor(trust), `${link.apiBase}/dirauth/pair/enroll`, { method: 'POST', json: { enrollment_token: link.token, proof } });
  if (a.status !== 201 || !a.body) throw refused(a);
  const b = a.body as Record<string, never>;
  const user = b.user as { id: string; email: string | null; name: string | null } | undefined;
  const state: DeviceState = {
    api_base: typeof b.api_base === 'string' && b.api_base ? String(b.api_base).replace(/\/+$/, '') : link.apiBase,
    device_id: b.device_id, private_jwk: keys.private_jwk, public_jwk: keys.public_jwk,
    access_token: b.access_token, refresh_token: b.refresh_token, totp: b.totp, fingerprint: trust.fingerprint,
    ...(trust.insecure ? { insecure: true } : {}), ...(user ? { user } : {}),
  };
  writeState(args.state, state);
  io.out(JSON.stringify({ device_id: state.device_id, user: user ?? null, api_base: state.api_base }));
}

/** Send a device-proof request for `path` (`htu` = path without query). */
async function deviceRequest(s: DeviceState, io: DeviceIo, method: string, path: string, query = ''): Promise<JsonAnswer> {
  const proof = await deviceProof({ device_id: s.device_id, audience: audienceOf(s), htm: method, htu: path, private_jwk: s.private_jwk, now: Math.floor(io.now() / 1000) });
  return requestJson(dispatcherFor({ fingerprint: s.fingerprint, insecure: s.insecure }), `${s.api_base}${path}${query}`, { method, headers: { 'x-device-proof': proof } });
}

async function pending(args: DeviceArgs, io: DeviceIo): Promise<void> {
  const s = readState(args.state);
  const a = await deviceRequest(s, io, 'GET', '/dirauth/pair/challenges', args.wait ? `?wait=${args.wait}` : '');
  if (a.status !== 200 || !Array.isArray(a.body?.items)) throw refused(a);
  for (const it of a.body.items as Record<string, unknown>[]) {
    io.out(JSON.stringify({ challenge_id: it.challenge_id, numbers: it.numbers, user: it.user, client_ip: it.client_ip, user_agent: it.user_agent, created_at: it.created_at, expires_at: it.expires_at }));
  }
}

async function answer(args: DeviceArgs, io: DeviceIo, decision: Decision): Promise<void> {
  const s = readState(args.state);
  const challenge_id = args.target!;
  const jws = await answerJws({ device_id: s.device_id, challenge_id, decision, number: args.number, private_jwk: s.private_jwk, now: Math.floor(io.now() / 1000) });
  // The signed answer is its own credential (object 4: bound to the device key and the challenge).
  const a = await requestJson(dispatcherFor({ fingerprint: s.fingerprint, insecure: s.insecure }), `${s.api_base}/dirauth/pair/challenges/${challenge_id}/answer`, { method: 'POST', json: { answer: jws } });
  if (a.status !== 200 || !a.body) throw refused(a);
  io.out(JSON.stringify({ challenge_id: a.body.challenge_id, status: a.body.status }));
  // A wrong number is an answer the server took, but the sign-in it denied is not what was asked for.
  if (decision === 'approve' && a.body.status !== 'approved') throw new DeviceCliError('challenge_denied', 'the number did not match: the sign-in was denied');
}

async function refresh(args: DeviceArgs, io: DeviceIo): Promise<void> {
  const s = readState(args.state);
  const a = await requestJson(dispatcherFor({ fingerprint: s.fingerprint, insecure: s.insecure }), `${s.api_base}/dirauth/pair/refresh`, { method: 'POST', json: { refresh_token: s.refresh_token } });
  if (a.status !== 200 || typeof a.body?.access_token !== 'string' || typeof a.body.refresh_token !== 'string') throw refused(a);
  writeState(args.state, { ...s, access_token: a.body.access_token, refresh_token: a.body.refresh_token });
  io.out(JSON.stringify({ refreshed: true, expires_in: a.body.expires_in ?? null }));
}

/** Run one command. @throws DeviceCliError (usage or the server's code) or TransportError. */
export async function runDevice(args: DeviceArgs, io: DeviceIo): Promise<void> {
  switch (args.command) {
    case 'pair': return pair(args, io);
    case 'pending': return pending(args, io);
    case 'approve': return answer(args, io, 'approve');
    case 'deny': return answer(args, io, 'deny');
    case 'report': return answer(args, io, 'report');
    case 'code': io.out(totpCode(readState(args.state).totp, io.now())); return;
    case 'refresh': return refresh(args, io);
  }
}

/** The CLI: parse, run, print; returns the exit code (0 ok, 1 refused or failed, 2 usage). */
export async function main(argv: readonly string[], io: DeviceIo & { err(line: string): void }): Promise<number> {
  try {
    await runDevice(parseDeviceArgs(argv), io);
    return 0;
  } catch (err) {
    if (err instanceof DeviceCliError) {
      io.err(err.code === 'usage' ? err.message : `svc-device: ${err.code}: ${err.message}`);
      return err.exitCode;
    }
    if (err instanceof TransportError) { io.err(`svc-device: ${err.code}: ${err.message}`); return 1; }
    io.err(`svc-device: error: ${(err as Error)?.message ?? String(err)}`);
    return 1;
  }
}

const invokedDirectly = (() => {
  try { return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url)); } catch { return false; }
})();
if (invokedDirectly) {
  process.exitCode = await main(process.argv.slice(2), {
    out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`), now: () => Date.now(),
  });
}
