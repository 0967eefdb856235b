/**
 * Regression (found with issue 11 item 3): `svc-verify` started through a symlink (a link in
 * ~/bin, a symlinked build folder) printed nothing and exited 0, a "verified" exit for any input,
 * tampered bundles included: its run-as-main guard compared `import.meta.url` (symlinks resolved)
 * with `argv[1]` (not resolved). Both sides are real paths now.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_DIR, KEY_V1, KEY_V2, removeDir } from '../helpers/audit.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/svc-verify.js', import.meta.url));

test('svc-verify run through a symlink verifies, and a tampered bundle exits 1', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-verify-link-'));
  t.after(() => removeDir(dir));
  const link = join(dir, 'svc-verify.js');
  symlinkSync(SCRIPT, link);
  const keys = ['--key-version', 'v1', '--key', KEY_V1, '--key-version', 'v2', '--key', KEY_V2];
  const run = (file: string) => spawnSync(process.execPath, [link, '--bundle', join(FIXTURE_DIR, 'golden', file), ...keys], { encoding: 'utf8' });

  const tampered = run('tampered-altered-event.bundle.json');
  assert.equal(tampered.status, 1, tampered.stdout + tampered.stderr);
  assert.match(tampered.stdout, /FAIL {2}leaves/);
  assert.match(tampered.stdout, /NOT VERIFIED/);

  const good = run('good-rotation.bundle.json');
  assert.equal(good.status, 0, good.stdout + good.stderr);
  assert.match(good.stdout, /^VERIFIED/m);
});
