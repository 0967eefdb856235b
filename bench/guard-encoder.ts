/**
 * The imported encoder classifier's true cost (issue 16 item 1 "a random-weight graph with the real
 * model's exact shapes measures the true cost"): protectai/deberta-v3-base-prompt-injection-v2's
 * architecture (DeBERTa-v3-base, 184 M parameters, disentangled attention over 256 position
 * buckets) with seeded random weights (test/helpers/guardrail/make-deberta-shaped.ts: same
 * operators, shapes and FLOPs as the real graph), in fp32 (the form the real repository ships,
 * `onnx/model.onnx`, 739 MB) and int8 (onnxruntime dynamic quantisation's form, for an operator
 * who quantises it).
 *
 * Per variant: the file's size; the graph alone (onnxruntime-node `InferenceSession.run`, the
 * product's session options: CPU, intra-op threads = SVC_GUARDRAIL_ENCODER_THREADS (default 1),
 * one inter-op thread) on one window of the token count of the 2 KB prompt bench/guardrail.ts
 * uses and on a full 512-token window; then the whole layer as the guardrail runs it
 * (`createEncoderClassifier(...).classify(prompt)`: queue, worker thread, transformers.js
 * tokenizer, windows, softmax, risk). A few runs each (the machine is shared), median reported.
 *
 * Run alone: `node <outDir>/bench/guard-encoder.js` (BENCH_ENCODER_THREADS, BENCH_ENCODER_VARIANTS=fp32,int8).
 */
import { rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-node';
import { AutoTokenizer } from '@huggingface/transformers';
import { createEncoderClassifier } from '../services/guardrail/src/classifier/encoder.js';
import { writeDebertaShaped } from '../test/helpers/guardrail/make-deberta-shaped.js';
import { TOKENIZER_DIR } from '../test/helpers/embedder/make-test-model.js';
import { pct } from './support/measure.js';
import type { Figure } from './audit.js';

const THREADS = Number(process.env.BENCH_ENCODER_THREADS ?? 1);
const VARIANTS = (process.env.BENCH_ENCODER_VARIANTS ?? 'fp32,int8').split(',') as Array<'fp32' | 'int8'>;
const RUNS = Number(process.env.BENCH_ENCODER_RUNS ?? 5);

/** The 2 KB prompt of bench/guardrail.ts. */
function prompt2k(): string {
  const para = 'Please review the following project update and suggest improvements to the plan. The team migrated the billing service to the new cluster last week, '
    + 'and error rates dropped by a third. Next we want to move the reporting jobs, update the runbooks, and train the on-call engineers. ';
  let p = '';
  while (p.length < 2048) p += para;
  return p.slice(0, 2048);
}

/** Run the measurement and print the figures. @returns the figures. */
export async function main(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const out = (f: Figure) => { figures.push(f); process.stdout.write(`${f.name.padEnd(74)} ${f.value.toFixed(f.value < 10 ? 2 : 0).padStart(9)} ${f.unit}\n`); };
  const prompt = prompt2k();
  const tok = await AutoTokenizer.from_pretrained(TOKENIZER_DIR, { local_files_only: true });
  const tokens = (tok(prompt, { truncation: true }) as { input_ids: { dims: number[] } }).input_ids.dims[1]!;
  process.stdout.write(`2 KB prompt: ${tokens} tokens (one window); ${THREADS} intra-op thread(s)\n`);
  for (const variant of VARIANTS) {
    const t0 = performance.now();
    const { root, dir, bytes } = writeDebertaShaped({ variant });
    process.stdout.write(`${variant}: graph written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    try {
      out({ name: `encoder (DeBERTa-v3-base shapes) ${variant}: graph file`, value: bytes / 1e6, unit: 'MB' });
      const session = await ort.InferenceSession.create(`${dir}/onnx/${variant === 'fp32' ? 'model.onnx' : 'model_quantized.onnx'}`, {
        executionProviders: ['cpu'], intraOpNumThreads: THREADS, interOpNumThreads: 1, graphOptimizationLevel: 'all',
      });
      for (const seq of [tokens, 512]) {
        const ids = new BigInt64Array(seq).map((_, i) => BigInt(1000 + ((i * 7919) % 29000)));
        const feeds = { input_ids: new ort.Tensor('int64', ids, [1, seq]), attention_mask: new ort.Tensor('int64', new BigInt64Array(seq).fill(1n), [1, seq]) };
        await session.run(feeds);
        const xs: number[] = [];
        for (let i = 0; i < RUNS; i++) { const t = performance.now(); await session.run(feeds); xs.push(performance.now() - t); }
        out({ name: `encoder ${variant}: graph alone, 1 window of ${seq} tokens, median of ${RUNS}`, value: pct(xs, 50), unit: 'ms' });
      }
      await session.release();
      const enc = createEncoderClassifier({ modelDirs: [root], model: 'deberta-v3-base-prompt-injection-v2', timeoutMs: 600_000, maxWindows: 4, threads: THREADS });
      const st = await enc.whenSettled();
      if (st.state !== 'ready') throw new Error(`encoder did not load: ${st.reason}`);
      await enc.classify(prompt);
      const xs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const a = await enc.classify(`${prompt.slice(0, 2040)} (${i})`);
        if (a.state !== 'ok') throw new Error(`encoder answered ${a.state}`);
        xs.push(a.ms);
      }
      out({ name: `encoder ${variant}: the guard layer on the 2 KB prompt (worker, tokenizer, windows), median`, value: pct(xs, 50), unit: 'ms' });
      await enc.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => { process.stderr.write(`${String(err)}\n`); process.exitCode = 1; });
}
