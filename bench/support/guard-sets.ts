/**
 * The shared guardrail data sets (issue 16 items 2, 4 and 6), read in place from `../shared/assets`
 * (or SVC_SHARED_ASSETS) and split deterministically into a tuning part and a held-out part. Nothing
 * is copied into the repository: the sets are read at run time, and only rates are printed.
 *
 * The split: a text belongs to the held-out part when the first 32 bits of
 * SHA-256(`issue16-split-v1\n` + the text with whitespace collapsed and trimmed) fall in the top
 * 40% of the range; the rest is the tuning (and training) part. Same text, same part, on every
 * machine and in every script; a duplicate of a text cannot sit on both sides.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Which side of the split a text is on. */
export type SplitPart = 'tune' | 'heldout';

/** Fraction of each set held out (never used for tuning or training). */
export const HELDOUT_FRACTION = 0.4;

/** The salt of the split; changing it re-deals every set (and invalidates earlier tuning). */
const SPLIT_SALT = 'issue16-split-v1\n';

/** The side of the split `text` is on (see module doc). */
export function splitOf(text: string): SplitPart {
  const h = createHash('sha256').update(SPLIT_SALT + text.replace(/\s+/g, ' ').trim()).digest();
  return h.readUInt32BE(0) / 0x1_0000_0000 >= 1 - HELDOUT_FRACTION ? 'heldout' : 'tune';
}

/** One labelled text of a set. `category` is HarmBench's semantic category or giskard's group. */
export interface GuardSample { text: string; part: SplitPart; category: string }

/** The three sets. */
export interface GuardSets { injections: GuardSample[]; harmful: GuardSample[]; benign: GuardSample[] }

/** Minimal RFC 4180 CSV reader (quoted fields, doubled quotes, newlines inside quotes). */
export function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let f = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (q) {
      if (c === '"') { if (text[i + 1] === '"') { f += '"'; i++; } else q = false; } else f += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(f); f = ''; }
    else if (c === '\n') { row.push(f); rows.push(row); row = []; f = ''; }
    else if (c !== '\r') f += c;
  }
  if (f || row.length) { row.push(f); rows.push(row); }
  const [head, ...body] = rows;
  return body.filter((r) => r.length === head!.length).map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i]!])));
}

/** The shared assets folder: SVC_SHARED_ASSETS, else `../shared/assets` next to the repository. */
export function sharedAssetsDir(): string {
  if (process.env.SVC_SHARED_ASSETS) return process.env.SVC_SHARED_ASSETS;
  // From dist/bench/support or .build/<x>/bench/support the repository is three levels up.
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const up of ['../../..', '../../../..', '../..']) {
    const dir = resolve(here, up, '../shared/assets');
    if (existsSync(join(dir, 'guardrail'))) return dir;
  }
  return resolve(here, '../../../../shared/assets');
}

/**
 * Read the three guardrail sets with their split. HarmBench's contextual behaviours are measured
 * as the behaviour sentence (as bench/guardrail.ts does). @throws Error when a file is missing.
 */
export function loadGuardSets(dir = sharedAssetsDir()): GuardSets {
  const tag = (text: string, category: string): GuardSample => ({ text, category, part: splitOf(text) });
  const inj = parseCsv(readFileSync(join(dir, 'guardrail/giskard_prompt_injections.csv'), 'utf8')).map((r) => tag(r.prompt!, r.group ?? ''));
  const harm = parseCsv(readFileSync(join(dir, 'guardrail/behavior_datasets__harmbench_behaviors_text_all.csv'), 'utf8')).map((r) => tag(r.Behavior!, r.SemanticCategory ?? ''));
  const benign = (JSON.parse(readFileSync(join(dir, 'guardrail/benign_instructions_dev.json'), 'utf8')) as Array<{ instruction: string }>).map((b) => tag(b.instruction, 'benign'));
  return { injections: inj, harmful: harm, benign };
}
