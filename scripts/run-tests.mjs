#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with Node's test runner, unit tests
// first, then integration, then end-to-end. Exit status is the runner's.
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const only = process.argv.slice(2);
const groups = only.length ? only : ['unit', 'integration', 'e2e'];
const files = groups.flatMap((g) => collect(join('dist', 'test', g)));
if (files.length === 0) {
  console.error('no test files found under dist/test; run npm run build first');
  process.exit(1);
}
const res = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], { stdio: 'inherit' });
process.exit(res.status ?? 1);
