/**
 * `npm run models:import -- <folder> [--dir <models folder>] [--allow-unverified]`: install the
 * embedding model on an air-gapped machine from a folder (a USB stick, a copied Hugging Face
 * snapshot). The folder may hold the files flat or in `onnx/`. Every pinned file found is checked
 * (size, sha256) and copied with progress; the ONNX model must be the pinned int8 or fp32 file
 * unless `--allow-unverified` is given (then it is copied and its hash printed).
 * `--guard [--pin <file>=<sha256>] [--pins <json>]`: the guardrail's encoder classifier instead
 * (scripts/models-guard.ts): every file's sha256 is recorded in `svc-model.json`, pins checked first.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, statSync, createReadStream, createWriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';
import { MODEL_NAME, PINNED, modelsDir, progress, sha256File } from './models-manifest.js';
import { GUARD_MODEL_NAME, RECORD_FILE, importGuardModel, readPins } from './models-guard.js';

const argv = process.argv.slice(2);
const src = argv.find((a, i) => !a.startsWith('--') && !['--dir', '--pin', '--pins'].includes(argv[i - 1] ?? ''));
const allowUnverified = argv.includes('--allow-unverified');

async function copyWithProgress(from: string, to: string, label: string): Promise<void> {
  mkdirSync(dirname(to), { recursive: true });
  const total = statSync(from).size;
  if (total < 4 * 1024 * 1024) { copyFileSync(from, `${to}.part`); renameSync(`${to}.part`, to); return; }
  const show = progress(label, total);
  const out = createWriteStream(`${to}.part`);
  let n = 0;
  for await (const chunk of createReadStream(from)) {
    n += (chunk as Buffer).length;
    show(n);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(`${to}.part`, to);
}

async function main(): Promise<void> {
  if (!src || !existsSync(src)) throw new Error('usage: npm run models:import -- [--guard] <folder holding the model files> [--dir <models folder>]');
  if (argv.includes('--guard')) {
    // Issue 16 item 1: the guardrail's encoder classifier; hashes recorded (and checked against --pin/--pins).
    const dir = modelsDir(argv, process.env);
    console.error(`models:import --guard ${src} -> ${join(dir, GUARD_MODEL_NAME)}`);
    await importGuardModel(src, dir, { pins: readPins(argv), log: (s) => console.error(s) });
    console.error(`done: recorded in ${join(dir, GUARD_MODEL_NAME, RECORD_FILE)}; restart the guardrail to turn the classifier layer on`);
    return;
  }
  const target = join(modelsDir(argv, process.env), MODEL_NAME);
  console.error(`models:import ${src} -> ${target}`);
  const hasOnnx = PINNED.some((f) => f.path.startsWith('onnx/') && [join(src, f.path), join(src, basename(f.path)), join(src, MODEL_NAME, f.path)].some((c) => existsSync(c)));
  if (!hasOnnx) throw new Error(`no ONNX model (onnx/model_quantized.onnx or onnx/model.onnx) in ${src}`);
  let onnx = 0;
  for (const f of PINNED) {
    const candidates = [join(src, f.path), join(src, basename(f.path)), join(src, MODEL_NAME, f.path)];
    const from = candidates.find((c) => existsSync(c));
    if (!from) {
      if (f.path.startsWith('onnx/')) continue;
      throw new Error(`${f.path} is missing from ${src}`);
    }
    const sha = await sha256File(from);
    const size = statSync(from).size;
    if (sha !== f.sha256 || size !== f.bytes) {
      if (!allowUnverified) throw new Error(`${from}: sha256 ${sha} (${size} bytes) is not the pinned ${f.sha256} (${f.bytes} bytes); refusing (use --allow-unverified to install anyway)`);
      console.error(`warning: ${f.path} is not the pinned file (sha256 ${sha}); installing because --allow-unverified was given`);
    }
    await copyWithProgress(from, join(target, f.path), f.path);
    if (f.path.startsWith('onnx/')) onnx++;
  }
  if (onnx === 0) throw new Error(`no ONNX model (model_quantized.onnx or model.onnx) in ${src}`);
  console.error(`done: the embedding model is in ${target}; restart the app (or services) to turn dense retrieval on`);
}

main().catch((err: unknown) => { console.error(`models:import failed: ${err instanceof Error ? err.message : String(err)}`); process.exit(1); });
