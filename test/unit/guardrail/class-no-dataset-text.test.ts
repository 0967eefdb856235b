/**
 * Regression (issue 16 items 4 and 6 "No sentence of any evaluation set appears in the code or
 * tests"): no run of eight words from any shared guardrail data set (giskard injections, HarmBench
 * behaviours, benign instructions), and no whole short sentence of them (four to seven words),
 * appears in the guardrail's code or in any guardrail test. The sets are read in place from
 * ../shared/assets (SVC_SHARED_ASSETS); without them the test skips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SHINGLE = 8;

/** The repository root: the first parent holding the guardrail's TypeScript sources (symlinks resolved). */
function repoRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const app = join(dir, 'services/guardrail/src/app.ts');
    if (existsSync(app)) return resolve(dirname(realpathSync(app)), '../../..');
    dir = resolve(dir, '..');
  }
  return null;
}

/** Lower-case words of `s`. */
const words = (s: string): string[] => s.toLowerCase().match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? [];

/** Every run of SHINGLE words of `s`. */
function shingles(s: string): string[] {
  const w = words(s);
  const out: string[] = [];
  for (let i = 0; i + SHINGLE <= w.length; i++) out.push(w.slice(i, i + SHINGLE).join(' '));
  return out;
}

/** TypeScript files under `dir` (recursive). */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The texts of a set file: CSV cells or JSON string values, one per sentence-ish item. */
function items(file: string, text: string): string[] {
  if (file.endsWith('.json')) return (JSON.parse(text) as Array<Record<string, unknown>>).flatMap((r) => Object.values(r).filter((v): v is string => typeof v === 'string'));
  return text.split(/[\n,]/);
}

test('no eight-word run, and no whole short sentence, of any shared data set appears in the guardrail code or tests', (t) => {
  const root = repoRoot();
  const assets = process.env.SVC_SHARED_ASSETS ?? (root ? resolve(root, '../shared/assets') : '');
  if (!root || !existsSync(join(assets, 'guardrail'))) { t.skip('shared data sets or sources not present'); return; }
  const names = readdirSync(join(assets, 'guardrail')).filter((f) => /\.(?:csv|json)$/.test(f));
  const known = new Set<string>();
  const short = new Map<number, Set<string>>();
  for (const f of names) {
    const text = readFileSync(join(assets, 'guardrail', f), 'utf8');
    for (const sh of shingles(text)) known.add(sh);
    for (const item of items(f, text)) {
      const w = words(item);
      if (w.length >= 4 && w.length < SHINGLE) { const set = short.get(w.length) ?? new Set<string>(); set.add(w.join(' ')); short.set(w.length, set); }
    }
  }
  assert.ok(known.size > 1000 && short.size > 0, 'the data sets were read');
  const files = [
    ...tsFiles(join(root, 'services/guardrail/src')),
    ...tsFiles(join(root, 'test/unit/guardrail')),
    ...readdirSync(join(root, 'test/integration')).filter((f) => f.startsWith('guard')).map((f) => join(root, 'test/integration', f)),
  ];
  const found: string[] = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const sh of shingles(text)) if (known.has(sh)) found.push(`${f.slice(root.length + 1)}: "${sh}"`);
    const w = words(text);
    for (const [n, set] of short) for (let i = 0; i + n <= w.length; i++) { const s = w.slice(i, i + n).join(' '); if (set.has(s)) found.push(`${f.slice(root.length + 1)}: "${s}"`); }
  }
  assert.deepEqual(found, []);
});
