/**
 * Sign an offline update bundle (issue 19 item 4; docs/update-bundles.md).
 *
 *   node dist/scripts/sign-update-bundle.js keygen <out-prefix>
 *     writes <out-prefix>.key (Ed25519 private key, PKCS#8 PEM, mode 0600) and <out-prefix>.pub
 *     (SPKI PEM: ship it in assets/update-keys/ or pass its base64 DER in SVC_UPDATE_PUBLIC_KEYS)
 *   node dist/scripts/sign-update-bundle.js sign --key <private.pem> --version <x.y.z> --out <file.svcupd> <dir>
 *     bundles every file under <dir> with a signed manifest
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { writeBundle } from '../main/update/write-bundle.js';

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'keygen' && rest[0]) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(`${rest[0]}.key`, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    writeFileSync(`${rest[0]}.pub`, publicKey.export({ format: 'pem', type: 'spki' }));
    process.stdout.write(`wrote ${rest[0]}.key and ${rest[0]}.pub\nSVC_UPDATE_PUBLIC_KEYS=${publicKey.export({ format: 'der', type: 'spki' }).toString('base64')}\n`);
    return;
  }
  if (cmd === 'sign') {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { key: { type: 'string' }, version: { type: 'string' }, out: { type: 'string' } } });
    if (!values.key || !values.version || !values.out || positionals.length !== 1) throw new Error('usage: sign --key <private.pem> --version <x.y.z> --out <file> <dir>');
    const m = await writeBundle(positionals[0]!, values.version, readFileSync(values.key, 'utf8'), values.out);
    process.stdout.write(`wrote ${values.out}: version ${m.version}, ${m.files.length} files\n`);
    return;
  }
  throw new Error('usage: sign-update-bundle keygen <out-prefix> | sign --key <private.pem> --version <x.y.z> --out <file> <dir>');
}

main().catch((err: unknown) => { process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`); process.exit(1); });
