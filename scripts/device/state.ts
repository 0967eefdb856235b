/**
 * The command-line device's state file (issue 14 item 7; /work/2fa-brief.md "Clients"): one JSON
 * document `{api_base, device_id, private_jwk, public_jwk, access_token, refresh_token, totp,
 * fingerprint}` holding the device's private key and tokens, so it is written mode 0600 (a temporary
 * file created 0600 in the same folder, then renamed over the old one: a crash never leaves half a key).
 */
import { chmodSync, existsSync, openSync, readFileSync, renameSync, writeSync, closeSync, fsyncSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { JWK } from 'jose';

/** The offline-code parameters exchanged at pairing (RFC 6238). */
export interface TotpParams { secret: string; algorithm: string; digits: number; period: number }

/** What the state file holds. */
export interface DeviceState {
  /** The workstation's public URL (`{public_url}`); requests go to `{api_base}/dirauth/pair/*`. */
  api_base: string;
  device_id: string;
  private_jwk: JWK;
  public_jwk: JWK;
  access_token: string;
  refresh_token: string;
  totp: TotpParams;
  /** Pinned SHA-256 of the workstation certificate (lowercase hex), '' for plain http or CA-verified https. */
  fingerprint: string;
  /** True when paired with `--insecure`: later commands skip the certificate check too. */
  insecure?: boolean;
  /** The user the device belongs to (from the pairing answer). */
  user?: { id: string; email: string | null; name: string | null };
}

/** File mode of the state file: owner read/write only. */
export const STATE_FILE_MODE = 0o600;

/** Read and check the state file. @throws Error naming the problem (missing file, not JSON, missing field). */
export function readState(path: string): DeviceState {
  if (!existsSync(path)) throw new Error(`no state file at ${path}; pair first`);
  let doc: unknown;
  try { doc = JSON.parse(readFileSync(path, 'utf8')); } catch { throw new Error(`the state file ${path} is not JSON`); }
  const s = doc as Partial<DeviceState>;
  for (const k of ['api_base', 'device_id', 'refresh_token'] as const) {
    if (typeof s[k] !== 'string' || !s[k]) throw new Error(`the state file ${path} has no ${k}`);
  }
  if (!s.private_jwk || typeof s.private_jwk !== 'object' || !s.totp || typeof s.totp.secret !== 'string') throw new Error(`the state file ${path} has no device key or offline-code secret`);
  return s as DeviceState;
}

/** Write the state file atomically with mode 0600 (also tightens a pre-existing file's mode). */
export function writeState(path: string, state: DeviceState): void {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', STATE_FILE_MODE);
  try {
    writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  // The umask may have narrowed the mode further, never widened it; set it exactly.
  chmodSync(tmp, STATE_FILE_MODE);
  renameSync(tmp, path);
}
