/**
 * Guardrail figures (issue 5 "Data for tuning" and "Figures"), measured side by side in one run on
 * the shared tuning sets read in place from `../shared/assets` (or SVC_SHARED_ASSETS); nothing is
 * copied into the repository:
 *  - injection block rate on the giskard prompt-injection set (target >= 0.9);
 *  - false-positive (block) rate on 1,000 benign instructions (target <= 0.02);
 *  - HarmBench behaviour block rate, per semantic category;
 *  - de-identification span recall on the presidio synthetic set, per entity type and over the
 *    direct identifiers (target >= 0.85), counted two ways: any overlap, and >= 80% of the span's
 *    non-space characters replaced;
 *  - guard input check latency on a 2 KB prompt, p50, in-process and through the HTTP route, next
 *    to a baseline plain regex pass over the same prompt (target <= 2 ms); the in-process check runs
 *    the heuristic and the trained n-gram layers (issue 16), each also timed alone. The quality
 *    rates on a held-out split, per layer, are bench/guard-quality.ts; the imported encoder
 *    classifier's cost on its true shapes is bench/guard-encoder.ts.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadNgramModel } from '../services/guardrail/src/classifier/ngram-file.js';
import { installNgramModel } from '../services/guardrail/src/classifier/ngram-layer.js';
import { scoreNgram } from '../services/guardrail/src/classifier/ngram.js';
import { runCheck } from '../services/guardrail/src/domain/check.js';
import { DEFAULT_POLICY } from '../services/guardrail/src/domain/policy.js';
import { findEntities } from '../services/guardrail/src/domain/pii.js';
import { guardrailSettings } from '../main/config/services/guardrail.js';
import { pct } from './support/measure.js';
import type { Figure } from './audit.js';
import { REPO_ROOT, startBenchGuardrail } from './support/guard-service.js';
import { parseCsv } from './support/guard-sets.js';

const ASSETS = process.env.SVC_SHARED_ASSETS ?? resolve(REPO_ROOT, '../shared/assets');



const DIRECT = new Set(['PERSON', 'STREET_ADDRESS', 'EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'IBAN_CODE', 'IP_ADDRESS', 'US_SSN', 'UK_NINO']);

/** Run the guardrail benchmarks and print the figures. @returns the figures. */
export async function main(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const out = (f: Figure) => { figures.push(f); process.stdout.write(`${f.name.padEnd(62)} ${f.value.toFixed(f.value < 10 ? 3 : 0).padStart(10)} ${f.unit}${f.target ? `  (target ${f.target}: ${f.pass ? 'PASS' : 'FAIL'})` : ''}\n`); };
  const blocked = (s: string) => runCheck(s, { direction: 'input', policy: DEFAULT_POLICY }).result.decision === 'block';

  const injections = parseCsv(readFileSync(join(ASSETS, 'guardrail/giskard_prompt_injections.csv'), 'utf8')).map((r) => r.prompt!);
  const injRate = injections.filter(blocked).length / injections.length;
  out({ name: `injection block rate (giskard, n=${injections.length})`, value: injRate, unit: '', target: '>= 0.9', pass: injRate >= 0.9 });

  const benign = (JSON.parse(readFileSync(join(ASSETS, 'guardrail/benign_instructions_dev.json'), 'utf8')) as Array<{ instruction: string }>).map((b) => b.instruction);
  const fp = benign.filter(blocked).length / benign.length;
  out({ name: `benign false-positive (block) rate (n=${benign.length})`, value: fp, unit: '', target: '<= 0.02', pass: fp <= 0.02 });
  const nonAllow = benign.filter((s) => runCheck(s, { direction: 'input', policy: DEFAULT_POLICY }).result.decision !== 'allow').length / benign.length;
  out({ name: 'benign non-allow (block or redact) rate', value: nonAllow, unit: '' });

  const harm = parseCsv(readFileSync(join(ASSETS, 'guardrail/behavior_datasets__harmbench_behaviors_text_all.csv'), 'utf8'));
  const byCat = new Map<string, [number, number]>();
  let hb = 0;
  for (const h of harm) {
    const b = blocked(h.Behavior!);
    if (b) hb++;
    const c = byCat.get(h.SemanticCategory!) ?? [0, 0];
    byCat.set(h.SemanticCategory!, [c[0] + (b ? 1 : 0), c[1] + 1]);
  }
  out({ name: `HarmBench behaviour block rate (n=${harm.length})`, value: hb / harm.length, unit: '' });
  for (const [cat, [k, n]] of [...byCat].sort()) out({ name: `  HarmBench ${cat} (n=${n})`, value: k / n, unit: '' });

  const pii = JSON.parse(readFileSync(join(ASSETS, 'pii/presidio_synth_dev.json'), 'utf8')) as Array<{ full_text: string; spans: Array<{ entity_type: string; start_position: number; end_position: number }> }>;
  const per = new Map<string, { n: number; overlap: number; covered: number }>();
  const t0 = performance.now();
  for (const r of pii) {
    const ents = findEntities(r.full_text, { types: DEFAULT_POLICY.pii.entities });
    for (const s of r.spans) {
      if (!DIRECT.has(s.entity_type)) continue;
      let tot = 0;
      let cov = 0;
      for (let i = s.start_position; i < s.end_position; i++) {
        if (/\s/.test(r.full_text[i]!)) continue;
        tot++;
        if (ents.some((e) => e.start <= i && i < e.end)) cov++;
      }
      const st = per.get(s.entity_type) ?? { n: 0, overlap: 0, covered: 0 };
      st.n++;
      if (cov > 0) st.overlap++;
      if (tot && cov / tot >= 0.8) st.covered++;
      per.set(s.entity_type, st);
    }
  }
  const deidMs = (performance.now() - t0) / pii.length;
  let n = 0; let o = 0; let c = 0;
  for (const [type, st] of [...per].sort()) {
    n += st.n; o += st.overlap; c += st.covered;
    out({ name: `  deidentify recall ${type} (n=${st.n}) overlap / >=80% covered`, value: st.covered / st.n, unit: `(overlap ${(st.overlap / st.n).toFixed(3)})` });
  }
  out({ name: `deidentify recall, direct identifiers (n=${n}), >=80% covered`, value: c / n, unit: '', target: '>= 0.85', pass: c / n >= 0.85 });
  out({ name: 'deidentify recall, direct identifiers, any overlap', value: o / n, unit: '' });
  out({ name: 'deidentify entity detection per sentence (presidio set)', value: deidMs, unit: 'ms' });

  // Latency on a 2 KB prompt: in-process check vs a plain regex pass, then the HTTP route.
  const para = 'Please review the following project update and suggest improvements to the plan. The team migrated the billing service to the new cluster last week, '
    + 'and error rates dropped by a third. Next we want to move the reporting jobs, update the runbooks, and train the on-call engineers. ';
  let prompt = '';
  while (prompt.length < 2048) prompt += para;
  prompt = prompt.slice(0, 2048);
  const baselineRes = [/ignore (?:all )?previous instructions/i, /\bsk-[A-Za-z0-9]{20,}/, /[\w.+-]+@[\w-]+\.[\w.]+/, /\b\d{3}-\d{2}-\d{4}\b/, /<\|im_start\|>/];
  const time = (fn: () => unknown, iters: number): number[] => {
    const xs: number[] = [];
    for (let i = 0; i < iters; i++) { const t = process.hrtime.bigint(); fn(); xs.push(Number(process.hrtime.bigint() - t) / 1e6); }
    return xs;
  };
  // Issue 16: the check as the scan workers run it, heuristic AND trained n-gram layers (the shipped
  // weights installed as a worker installs them), beside the n-gram layer alone and the heuristics alone.
  const ngramPath = guardrailSettings({}, { dataDir: tmpdir(), repoRoot: REPO_ROOT, production: false }).ngramModelPath;
  const ngram = ngramPath ? loadNgramModel(ngramPath).model : null;
  for (let i = 0; i < 200; i++) runCheck(prompt, { direction: 'input', policy: DEFAULT_POLICY });
  const base: number[] = [];
  const guard: number[] = [];
  const heuristicOnly: number[] = [];
  const ngramOnly: number[] = [];
  for (let round = 0; round < 10; round++) {
    base.push(...time(() => baselineRes.map((re) => re.test(prompt)), 100));
    installNgramModel(ngram);
    guard.push(...time(() => runCheck(prompt, { direction: 'input', policy: DEFAULT_POLICY }), 100));
    if (ngram) ngramOnly.push(...time(() => scoreNgram(ngram, prompt), 100));
    installNgramModel(null);
    heuristicOnly.push(...time(() => runCheck(prompt, { direction: 'input', policy: DEFAULT_POLICY }), 100));
  }
  const g50 = pct(guard, 50);
  out({ name: `guard input check (heuristic + n-gram${ngram ? '' : ' ABSENT'}), 2 KB prompt, in-process p50`, value: g50, unit: 'ms', target: '<= 2', pass: g50 <= 2 });
  out({ name: 'guard input check (heuristic + n-gram), 2 KB prompt, in-process p99', value: pct(guard, 99), unit: 'ms' });
  out({ name: '  of which: heuristic layers alone, p50', value: pct(heuristicOnly, 50), unit: 'ms' });
  if (ngram) out({ name: '  of which: n-gram classifier alone (scoreNgram), p50', value: pct(ngramOnly, 50), unit: 'ms' });
  out({ name: 'baseline: plain regex pass (5 regexes), same prompt, p50', value: pct(base, 50), unit: 'ms' });

  const { pool, headers, close } = await startBenchGuardrail('guardrail-bench-', 1);
  try {
    const body = JSON.stringify({ content: prompt, scope: { tenant_id: 'bench' } });
    const http: number[] = [];
    for (let i = 0; i < 1200; i++) {
      const t = process.hrtime.bigint();
      const r = await pool.request({ method: 'POST', path: '/v1/guard/input', headers, body });
      await r.body.text();
      if (r.statusCode !== 200) throw new Error(`guard input answered ${r.statusCode}`);
      if (i >= 200) http.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    out({ name: 'guard input check, 2 KB prompt, HTTP route p50 (no turn id)', value: pct(http, 50), unit: 'ms' });
  } finally {
    await close();
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => { process.stderr.write(`${String(err)}\n`); process.exitCode = 1; });
}
