/**
 * Signed offline update bundles (issue 19 item 4; docs/update-bundles.md): verify, stage, apply at
 * the next start, roll back.
 *
 * A bundle file is `SVCUPD1\n`, a 4-byte big-endian manifest length, the manifest (UTF-8 JSON
 * `{format: "svc-update-bundle/1", version, created_at, files: [{path, size, sha256}]}`), a 4-byte
 * big-endian signature length, the detached Ed25519 signature over the exact manifest bytes, then
 * each file's bytes in manifest order. The signature is checked against the trusted keys before
 * anything is written; each file's SHA-256 before the bundle is staged.
 *
 * State lives in `<dataDir>/updates/`: `state.json` (`current`, `previous`, `pending`), `staging/`,
 * `versions/<version>/` (the installed files of each kept version).
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, openSync, readSync, closeSync, readFileSync, renameSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { dirname, join, normalize, isAbsolute } from 'node:path';

/** Magic bytes that open a bundle. */
export const BUNDLE_MAGIC = Buffer.from('SVCUPD1\n');
/** The manifest's `format`. */
export const BUNDLE_FORMAT = 'svc-update-bundle/1';

/** One file of a bundle. */
export interface BundleFile { path: string; size: number; sha256: string }
/** The signed manifest. */
export interface BundleManifest { format: string; version: string; created_at: string; files: BundleFile[] }

/** A version record of `state.json`. */
export interface DeployedVersion { version: string; at: string; dir: string; files: number }
/** `state.json`. */
export interface UpdateState {
  current: DeployedVersion | null;
  previous: DeployedVersion | null;
  pending: { kind: 'update'; version: string; staged_at: string; dir: string; files: number } | { kind: 'rollback'; to: string; staged_at: string } | null;
  /** The last version that failed to become ready under the launcher (main/update/launch.ts), rolled back automatically. */
  last_failure?: LaunchFailure | null;
}

/** A launch that failed: the version, when, why, and what the launcher rolled back to (null: the installed app). */
export interface LaunchFailure { version: string; at: string; reason: string; rolled_back_to: string | null }

/** A refused bundle: `code` is `bad_signature` or `bad_bundle` (answered 400). */
export class BundleError extends Error {
  constructor(readonly code: 'bad_signature' | 'bad_bundle' | 'no_previous_version', message: string) { super(message); }
}

/** Build a bundle's bytes header: magic, manifest, signature (files follow). */
export function bundleHeader(manifestBytes: Buffer, signature: Buffer): Buffer {
  const a = Buffer.alloc(4); a.writeUInt32BE(manifestBytes.length);
  const b = Buffer.alloc(4); b.writeUInt32BE(signature.length);
  return Buffer.concat([BUNDLE_MAGIC, a, manifestBytes, b, signature]);
}

function readExactly(fd: number, pos: number, n: number): Buffer {
  const buf = Buffer.alloc(n);
  const got = readSync(fd, buf, 0, n, pos);
  if (got !== n) throw new BundleError('bad_bundle', 'bundle is truncated');
  return buf;
}

function stateFile(dataDir: string): string { return join(dataDir, 'updates', 'state.json'); }

/** Read `state.json` (empty state when absent). */
export function readUpdateState(dataDir: string): UpdateState {
  const f = stateFile(dataDir);
  if (!existsSync(f)) return { current: null, previous: null, pending: null };
  return JSON.parse(readFileSync(f, 'utf8')) as UpdateState;
}

/** Write `state.json` atomically (0600). */
export function writeUpdateState(dataDir: string, s: UpdateState): void { writeState(dataDir, s); }

/**
 * Roll back a version that failed to start (the launcher calls it): `previous` becomes current (or
 * none: the installed app), the failed version's folder is kept for inspection but no longer current
 * nor previous, and the failure is recorded for `GET /v1/admin/deploy`.
 * @returns the version now current, or null (the installed app).
 */
export function rollBackFailedLaunch(dataDir: string, version: string, reason: string): string | null {
  const s = readUpdateState(dataDir);
  if (s.current?.version !== version) return s.current?.version ?? null;
  const to = s.previous;
  s.current = to ? { ...to, at: new Date().toISOString() } : null;
  s.previous = null;
  s.last_failure = { version, at: new Date().toISOString(), reason, rolled_back_to: to?.version ?? null };
  writeState(dataDir, s);
  return to?.version ?? null;
}

function writeState(dataDir: string, s: UpdateState): void {
  const f = stateFile(dataDir);
  mkdirSync(dirname(f), { recursive: true });
  writeFileSync(`${f}.tmp`, JSON.stringify(s, null, 2), { mode: 0o600 });
  renameSync(`${f}.tmp`, f);
}

function checkManifest(m: unknown): BundleManifest {
  const x = m as BundleManifest;
  if (!x || x.format !== BUNDLE_FORMAT || typeof x.version !== 'string' || !/^[0-9A-Za-z.+-]{1,64}$/.test(x.version) || !Array.isArray(x.files)) {
    throw new BundleError('bad_bundle', `manifest is not a ${BUNDLE_FORMAT} manifest`);
  }
  for (const f of x.files) {
    if (typeof f.path !== 'string' || isAbsolute(f.path) || normalize(f.path).startsWith('..') || f.path.includes('\\') || !Number.isSafeInteger(f.size) || f.size < 0 || !/^[0-9a-f]{64}$/.test(f.sha256)) {
      throw new BundleError('bad_bundle', `manifest entry ${JSON.stringify(f.path)} is malformed`);
    }
  }
  return x;
}

/**
 * Verify the bundle at `file` and stage it as the pending update. Signature first (against every
 * trusted key), then each file's size and SHA-256 while copying into `updates/staging/`.
 * @throws BundleError `bad_signature` (missing or not by a trusted key) or `bad_bundle` (malformed, truncated, hash mismatch).
 */
export async function stageBundle(dataDir: string, file: string, trustedKeys: readonly string[]): Promise<UpdateState> {
  const fd = openSync(file, 'r');
  let manifest: BundleManifest;
  let offset: number;
  try {
    const magic = readExactly(fd, 0, BUNDLE_MAGIC.length);
    if (!magic.equals(BUNDLE_MAGIC)) throw new BundleError('bad_bundle', 'not an update bundle (magic bytes)');
    const mlen = readExactly(fd, BUNDLE_MAGIC.length, 4).readUInt32BE();
    if (mlen > 16 * 1024 * 1024) throw new BundleError('bad_bundle', 'manifest too large');
    const mbytes = readExactly(fd, BUNDLE_MAGIC.length + 4, mlen);
    const slen = readExactly(fd, BUNDLE_MAGIC.length + 4 + mlen, 4).readUInt32BE();
    if (slen !== 64) throw new BundleError('bad_signature', 'bundle carries no Ed25519 signature');
    const sig = readExactly(fd, BUNDLE_MAGIC.length + 8 + mlen, slen);
    const ok = trustedKeys.some((k) => { try { return verify(null, mbytes, createPublicKey(k), sig); } catch { return false; } });
    if (!ok) throw new BundleError('bad_signature', 'bundle signature does not verify against any trusted publisher key');
    let parsed: unknown;
    try { parsed = JSON.parse(mbytes.toString('utf8')); } catch { throw new BundleError('bad_bundle', 'manifest is not JSON'); }
    manifest = checkManifest(parsed);
    offset = BUNDLE_MAGIC.length + 8 + mlen + slen;
  } finally { closeSync(fd); }

  const staging = join(dataDir, 'updates', 'staging', manifest.version);
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const f of manifest.files) {
      const target = join(staging, f.path);
      mkdirSync(dirname(target), { recursive: true });
      const hash = createHash('sha256');
      if (f.size > 0) {
        await new Promise<void>((resolve, reject) => {
          const src = createReadStream(file, { start: offset, end: offset + f.size - 1 });
          const out = createWriteStream(target, { mode: 0o644 });
          let n = 0;
          src.on('data', (c: Buffer | string) => { const b = Buffer.isBuffer(c) ? c : Buffer.from(c); n += b.length; hash.update(b); });
          src.on('error', reject); out.on('error', reject);
          out.on('finish', () => (n === f.size ? resolve() : reject(new BundleError('bad_bundle', `bundle is truncated at ${f.path}`))));
          src.pipe(out);
        });
      } else writeFileSync(target, '');
      if (hash.digest('hex') !== f.sha256) throw new BundleError('bad_bundle', `SHA-256 of ${f.path} does not match the manifest`);
      offset += f.size;
    }
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  const state = readUpdateState(dataDir);
  state.pending = { kind: 'update', version: manifest.version, staged_at: new Date().toISOString(), dir: staging, files: manifest.files.length };
  writeState(dataDir, state);
  return state;
}

/** `to` of a rollback whose target is the shipped app (no installed version before the current one). */
export const SHIPPED_APP = '(shipped app)';

/**
 * Stage a rollback to the previous version, or to the shipped app when the current installed
 * version was the first (applied at the next start).
 * @throws BundleError `no_previous_version` when no installed version runs (nothing to leave).
 */
export function stageRollback(dataDir: string): UpdateState {
  const state = readUpdateState(dataDir);
  if (!state.previous && !state.current) throw new BundleError('no_previous_version', 'there is no previous version to roll back to');
  state.pending = { kind: 'rollback', to: state.previous?.version ?? SHIPPED_APP, staged_at: new Date().toISOString() };
  writeState(dataDir, state);
  return state;
}

/**
 * Apply what is pending (the supervisor runs this before it starts the services): a staged update
 * moves into `versions/<version>/` and becomes current, the old current is kept as previous; a
 * rollback swaps current and previous. Versions older than previous are removed.
 * @returns a line saying what was applied, or null.
 */
export function applyPendingUpdate(dataDir: string): string | null {
  const state = readUpdateState(dataDir);
  const p = state.pending;
  if (!p) return null;
  const now = new Date().toISOString();
  if (p.kind === 'update') {
    const dir = join(dataDir, 'updates', 'versions', p.version);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    renameSync(p.dir, dir);
    const old = state.previous;
    state.previous = state.current;
    state.current = { version: p.version, at: now, dir, files: p.files };
    if (old && old.dir !== state.previous?.dir && old.dir !== dir) rmSync(old.dir, { recursive: true, force: true });
  } else {
    const prev = state.previous;
    state.previous = state.current;
    state.current = prev ? { ...prev, at: now } : null;
  }
  state.pending = null;
  writeState(dataDir, state);
  return p.kind === 'update' ? `applied update ${p.version}` : `rolled back to ${p.to}`;
}
