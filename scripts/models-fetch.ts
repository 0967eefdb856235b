/**
 * `npm run models:fetch [-- --fp32] [--dir <folder>] [--base-url <mirror>]`: download the pinned
 * embedding model on a connected machine, with progress, verifying size and sha256 of every file
 * before it is moved into place (a partial or tampered download never lands). Default: the int8
 * model (`onnx/model_quantized.onnx`); `--fp32` adds `onnx/model.onnx`.
 * Exit status 0 when every file is in place and verified.
 * `--guard --pin <file>=<sha256> ... [--pins <json>]`: the guardrail's encoder classifier by name
 * instead (scripts/models-guard.ts); every file must be pinned by the operator.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { request } from 'undici';
import { HF_REPO, MODEL_NAME, PINNED, modelsDir, progress, sha256File } from './models-manifest.js';
import { GUARD_MODEL_NAME, fetchGuardModel, guardBaseUrl, readPins } from './models-guard.js';

const argv = process.argv.slice(2);
const fp32 = argv.includes('--fp32');
const bi = argv.indexOf('--base-url');
const base = (bi >= 0 ? argv[bi + 1] : process.env.SVC_MODELS_BASE_URL) || `https://huggingface.co/${HF_REPO}/resolve/main`;
const target = join(modelsDir(argv, process.env), MODEL_NAME);

async function fetchFile(url: string, dest: string, bytes: number, sha: string, redirects = 5): Promise<void> {
  const res = await request(url, { method: 'GET', headersTimeout: 30_000, bodyTimeout: 60_000 });
  if ([301, 302, 303, 307, 308].includes(res.statusCode) && redirects > 0) {
    await res.body.dump();
    return fetchFile(new URL(String(res.headers.location), url).href, dest, bytes, sha, redirects - 1);
  }
  if (res.statusCode !== 200) { await res.body.dump(); throw new Error(`${url} answered ${res.statusCode}`); }
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.part`;
  const out = createWriteStream(tmp);
  const h = createHash('sha256');
  const show = progress(dest.slice(target.length + 1), bytes);
  let n = 0;
  for await (const chunk of res.body) {
    h.update(chunk as Buffer);
    n += (chunk as Buffer).length;
    show(n);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const got = h.digest('hex');
  if (n !== bytes || got !== sha) { rmSync(tmp, { force: true }); throw new Error(`${dest}: expected ${bytes} bytes sha256 ${sha}, got ${n} bytes ${got}`); }
  renameSync(tmp, dest);
}

async function main(): Promise<void> {
  if (argv.includes('--guard')) {
    // Issue 16 item 1: the guardrail's encoder classifier, every file checked against the operator's pins.
    const dir = modelsDir(argv, process.env);
    const base = guardBaseUrl(argv, process.env);
    console.error(`models:fetch --guard ${base} -> ${join(dir, GUARD_MODEL_NAME)}`);
    await fetchGuardModel(dir, { base, pins: readPins(argv), log: (s) => console.error(s) });
    console.error('done: restart the guardrail to turn the classifier layer on');
    return;
  }
  console.error(`models:fetch ${HF_REPO} -> ${target}`);
  for (const f of PINNED) {
    if (f.optional && !fp32) continue;
    const dest = join(target, f.path);
    if (existsSync(dest) && (await sha256File(dest)) === f.sha256) { console.error(`${f.path} already present and verified`); continue; }
    await fetchFile(`${base}/${f.path}`, dest, f.bytes, f.sha256);
  }
  console.error(`done: the embedding model is in ${target}; restart the app (or services) to turn dense retrieval on`);
}

main().catch((err: unknown) => { console.error(`models:fetch failed: ${err instanceof Error ? err.message : String(err)}`); process.exit(1); });
