#!/usr/bin/env node
// Build step (after tsc): rewrite dist/services/shared/kit/typebox.js, which imports TypeBox's
// builders by name, into one self-contained, tree-shaken ES module with rolldown. Every service
// worker loads it; TypeBox's whole module graph costs about 3.5 MB of heap per worker, the shaken
// bundle about 0.5 MB (docs/decisions.md "What TypeBox costs, measured"). Idempotent: a bundled
// file has no imports left and bundles to itself.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const file = join(root, 'dist', 'services', 'shared', 'kit', 'typebox.js');
if (!existsSync(file)) {
  console.error(`bundle-typebox: ${file} is missing; run tsc first`);
  process.exit(1);
}
const bundle = await rolldown({ input: file, platform: 'node', logLevel: 'warn' });
await bundle.write({ file, format: 'esm', sourcemap: false });
await bundle.close();
