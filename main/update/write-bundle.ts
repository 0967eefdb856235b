/**
 * Write a signed update bundle (issue 19 item 4; format in main/update/bundle.ts and
 * docs/update-bundles.md): every regular file under `dir` (sorted by path), a manifest with their
 * sizes and SHA-256, and a detached Ed25519 signature over the manifest bytes by `privateKeyPem`.
 * Used by scripts/sign-update-bundle.ts and the tests.
 */
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { createReadStream, createWriteStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { BUNDLE_FORMAT, bundleHeader, type BundleManifest } from './bundle.js';

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Write the bundle of `dir` as `version` to `outFile`. @returns the manifest. @throws when the key is not Ed25519. */
export async function writeBundle(dir: string, version: string, privateKeyPem: string, outFile: string): Promise<BundleManifest> {
  const key = createPrivateKey(privateKeyPem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the signing key must be an Ed25519 private key (PEM)');
  const files = walk(dir).sort();
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT, version, created_at: new Date().toISOString(),
    files: files.map((f) => ({ path: relative(dir, f).split(sep).join('/'), size: statSync(f).size, sha256: createHash('sha256').update(readFileSync(f)).digest('hex') })),
  };
  const mbytes = Buffer.from(JSON.stringify(manifest), 'utf8');
  const signature = sign(null, mbytes, key);
  const out = createWriteStream(outFile, { mode: 0o644 });
  out.write(bundleHeader(mbytes, signature));
  for (const f of files) {
    await new Promise<void>((resolve, reject) => {
      const src = createReadStream(f);
      src.on('error', reject); src.on('end', resolve);
      src.pipe(out, { end: false });
    });
  }
  await new Promise<void>((resolve, reject) => { out.on('error', reject); out.end(resolve); });
  return manifest;
}
