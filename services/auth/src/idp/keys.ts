/**
 * The embedded IdP's realm keys (issue 15 item 1): `<dataDir>/keys/idp-realm-keys.json` (mode 0600 in
 * a 0700 directory) holds `{keys, cookieKeys}`: `keys` are ES256 private JWKs, newest first, each with
 * a `kid` (RFC 7638 thumbprint); the first signs, every one is published in the realm JWKS, so tokens
 * signed before a rotation keep verifying until they expire. `cookieKeys` sign the IdP's cookies.
 *
 * Generated on first start. Rotation (operator): create an empty file `idp-realm-keys.rotate` beside
 * the key file and restart the auth service; at start a new key is put first, at most
 * `REALM_KEYS_KEPT` keys are kept (the oldest is dropped), and the marker is removed. Wait at least
 * the access-token lifetime between two rotations so no live token loses its key.
 * A file that exists but does not hold usable keys stops the service; messages never carry key material.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

/** File name of the realm keys under `<dataDir>/keys/`. */
export const REALM_KEYS_FILE = 'idp-realm-keys.json';

/** Marker file (beside the keys) that asks for a rotation at the next start. */
export const REALM_KEYS_ROTATE_MARKER = 'idp-realm-keys.rotate';

/** Keys kept in the file and the JWKS: the signing key and the previous ones. */
export const REALM_KEYS_KEPT = 3;

/** The realm key material as oidc-provider takes it. */
export interface RealmKeys {
  /** Private JWKs, newest (signing) first. */
  keys: JWK[];
  /** Cookie signing keys, newest first. */
  cookieKeys: string[];
}

async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk, 'sha256'), alg: 'ES256', use: 'sig' };
}

function valid(k: JWK): boolean {
  return k.kty === 'EC' && k.crv === 'P-256' && typeof k.d === 'string' && typeof k.kid === 'string' && !!k.x && !!k.y;
}

function write(file: string, keys: RealmKeys): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, JSON.stringify(keys, null, 2), { mode: 0o600, flag: 'wx' });
  renameSync(tmp, file);
}

/**
 * Load the realm keys at `file`, generating them on first start and rotating when the marker
 * `REALM_KEYS_ROTATE_MARKER` sits beside the file.
 * @throws Error when the file exists but is not valid JSON or holds no usable ES256 private key.
 */
export async function loadOrCreateRealmKeys(file: string): Promise<RealmKeys> {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  if (!existsSync(file)) write(file, { keys: [await newKey()], cookieKeys: [randomBytes(32).toString('base64url')] });
  chmodSync(file, 0o600);
  let stored: RealmKeys;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as RealmKeys;
  } catch {
    throw new Error(`IdP realm key file ${file} is not valid JSON; move it away to generate new keys`);
  }
  if (!Array.isArray(stored.keys) || stored.keys.length === 0 || !stored.keys.every(valid) || !Array.isArray(stored.cookieKeys) || stored.cookieKeys.length === 0) {
    throw new Error(`IdP realm key file ${file} does not hold ES256 private keys with kids; move it away to generate new keys`);
  }
  const marker = `${dir}/${REALM_KEYS_ROTATE_MARKER}`;
  if (existsSync(marker)) {
    stored = {
      keys: [await newKey(), ...stored.keys].slice(0, REALM_KEYS_KEPT),
      cookieKeys: [randomBytes(32).toString('base64url'), ...stored.cookieKeys].slice(0, REALM_KEYS_KEPT),
    };
    write(file, stored);
    rmSync(marker, { force: true });
  }
  return stored;
}

/** The public half of a realm key as published in the JWKS (no private members). */
export function publicRealmJwk(k: JWK): JWK {
  return { kty: k.kty, crv: k.crv, x: k.x, y: k.y, kid: k.kid, alg: 'ES256', use: 'sig' };
}
