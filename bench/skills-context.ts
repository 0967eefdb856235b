/**
 * Context cost of installed skills (issue 17 "Conformance and figures": 50 installed skills in a turn
 * that uses none; target: names and descriptions only). Over the runtime's own code on a temp
 * database (the `SkillLibrary` over SQLite, migration 0008): 50 personal and tenant skills with
 * SKILL.md-sized descriptions (60-200 characters) and bodies (2-6 KB), then what a turn that loads
 * none adds to the prompt: the `skills` system part (`skillsPromptPart`) and the `load_skill` tool
 * definition, counted with the runtime's budget estimator (domain/history.ts `messageTokens` /
 * `textTokens`: about 4 characters per token plus 4 per message; the router exposes no tokenizer).
 * Beside it: what the same skills would cost with their bodies inlined, and the per-turn lookup
 * time (`offered`, p50).
 *
 * Alone: `node dist/bench/skills-context.js` (after `npm run build`); in `npm run bench` with the others.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageTokens, textTokens } from '../services/agent-runtime/src/domain/history.js';
import { SkillLibrary } from '../services/agent-runtime/src/domain/skills/library.js';
import { loadSkillTool, skillsPromptPart } from '../services/agent-runtime/src/domain/skills/load-tool.js';
import { openRuntimeStore } from '../services/agent-runtime/src/store/runtime-store.js';
import { REPO_ROOT, removeDir } from '../test/helpers/service-configs.js';
import { pct, runIfEntry } from './support/measure.js';
import type { Figure } from './audit.js';

const SKILLS = 50;
const LOOKUPS = 2000;
const WORDS = ['contract', 'review', 'invoice', 'quarterly', 'report', 'summarise', 'extract', 'table', 'figure', 'policy', 'check', 'draft', 'email', 'customer', 'ledger', 'forecast'];

/** A deterministic pseudo-random text of `chars` characters. */
function text(seed: number, chars: number): string {
  let s = seed;
  const out: string[] = [];
  let n = 0;
  while (n < chars) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const w = WORDS[(s >>> 16) % WORDS.length]!;
    out.push(w);
    n += w.length + 1;
  }
  return out.join(' ').slice(0, chars);
}

/** Measure; @returns the figures. */
export async function main(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-skills-'));
  const store = openRuntimeStore({ dbDir: dir, migrationsDir: join(REPO_ROOT, 'migrations') });
  try {
    const lib = new SkillLibrary(store.skills);
    const user = { tenantId: 'acme', userId: 'u1', isAdmin: true };
    let bodyTokens = 0;
    for (let i = 0; i < SKILLS; i++) {
      const content = `# Skill ${i}\n\nBODY-MARKER-${i}\n${text(i + 1, 2000 + (i % 5) * 1000)}`;
      bodyTokens += messageTokens({ role: 'system', content });
      await lib.create(user, { name: `skill-${String(i).padStart(2, '0')}-${WORDS[i % WORDS.length]}`, description: text(1000 + i, 60 + (i * 29) % 141), content, scope: i % 2 ? 'tenant' : 'personal' });
    }
    const offered = await lib.offered('acme', 'u1');
    const part = skillsPromptPart(offered)!;
    const partTokens = messageTokens({ role: 'system', content: part });
    const toolTokens = textTokens(JSON.stringify(loadSkillTool(lib).definition));
    const added = partTokens + toolTokens;
    const bodiesInPart = offered.filter((s) => part.includes(`BODY-MARKER-${s.content.split('BODY-MARKER-')[1]?.split('\n')[0]}`)).length;
    const times: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) {
      const t0 = performance.now();
      skillsPromptPart(await lib.offered('acme', 'u1'));
      times.push(performance.now() - t0);
    }
    const figures: Figure[] = [
      { name: `skills context: ${offered.length} skills offered, turn loading none (estimated tokens added)`, value: added, unit: 'tokens', target: 'names and descriptions only', pass: bodiesInPart === 0 && offered.length === SKILLS },
      { name: 'skills context: the skills system part', value: partTokens, unit: 'tokens' },
      { name: 'skills context: the load_skill tool definition', value: toolTokens, unit: 'tokens' },
      { name: 'skills context: per skill offered', value: added / SKILLS, unit: 'tokens' },
      { name: 'skills context: the same skills with bodies inlined', value: bodyTokens + toolTokens, unit: 'tokens' },
      { name: 'skills context: per-turn lookup and prompt part, p50', value: pct(times, 50), unit: 'ms' },
    ];
    for (const f of figures) console.log(`${f.name.padEnd(90)} ${Number.isInteger(f.value) ? f.value : f.value.toFixed(3)} ${f.unit}`);
    return figures;
  } finally {
    store.close();
    removeDir(dir);
  }
}

await runIfEntry(import.meta.url, main);
