/**
 * The ES256 signing key on disk: `<data dir>/keys/auth-signing-key.json`, a private JWK with `kid`
 * (RFC 7638 thumbprint), `alg` and `use`; file mode 0600 in a 0700 directory.
 *
 * Generated on first start and created with an exclusive link, so two racing starts agree on one key.
 * A file that exists but is not a usable P-256 private key stops the service (replacing it silently
 * would invalidate every issued token); error messages never include key material.
 */
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { SigningKey } from '../domain/tokens.js';

async function generate(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk, 'sha256'), alg: 'ES256', use: 'sig' };
}

function create(file: string, jwk: JWK): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, JSON.stringify(jwk, null, 2), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Load the signing key at `file`, generating it first when absent; tightens the modes of the file
 * (0600) and its directory (0700).
 * @throws Error when the file exists but does not hold an ES256 private JWK with a `kid`.
 */
export async function loadOrCreateSigningKey(file: string): Promise<SigningKey> {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  if (!existsSync(file)) create(file, await generate());
  chmodSync(file, 0o600);
  let jwk: JWK;
  try {
    jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  } catch {
    throw new Error(`auth signing key file ${file} is not valid JSON; move it away to generate a new key`);
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string' || typeof jwk.kid !== 'string' || !jwk.x || !jwk.y) {
    throw new Error(`auth signing key file ${file} does not hold an ES256 private key with a kid; move it away to generate a new key`);
  }
  const privateKey = await importJWK(jwk, 'ES256');
  return {
    kid: jwk.kid,
    privateKey,
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid: jwk.kid, alg: 'ES256', use: 'sig' },
  };
}
