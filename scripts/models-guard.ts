/**
 * The guardrail's encoder classifier for `models:import -- --guard` and `models:fetch -- --guard`
 * (issue 16 item 1): a prompt-injection / jailbreak text-classification model in ONNX form, by
 * default protectai/deberta-v3-base-prompt-injection-v2 (Apache-2.0, ungated; its `onnx/` folder
 * holds the model and its tokenizer), installed as `<models dir>/<name>/` in the layout
 * transformers.js reads (config and tokenizer files at the top, the graph in `onnx/`).
 *
 * Import copies the files from a folder (a USB stick, a copied Hugging Face snapshot: flat, in
 * `onnx/`, or under `<name>/`), computes each file's sha256 and records them in
 * `<name>/svc-model.json` (the guardrail reports the recorded hash and refuses a graph whose size
 * no longer matches it); hashes the operator pins (`--pin <file>=<sha256>`, `--pins <json>`) are
 * checked first. Fetch downloads by name from the hub (or `--base-url` / SVC_GUARDRAIL_MODEL_BASE_URL) and
 * refuses any file the operator has not pinned: no hash of this model is known to the project, so
 * the operator's pins are the only trust anchor (a partial or different download never lands).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { request } from 'undici';
import { progress, sha256File } from './models-manifest.js';

/** Default model folder name (SVC_GUARDRAIL_CLASSIFIER_MODEL). */
export const GUARD_MODEL_NAME = 'deberta-v3-base-prompt-injection-v2';
/** Its repository on the hub. */
export const GUARD_HF_REPO = 'protectai/deberta-v3-base-prompt-injection-v2';
/** The record written next to the files (read by services/guardrail/src/classifier/encoder.ts). */
export const RECORD_FILE = 'svc-model.json';

/** One file of the model: where it is in the hub repository, and where it goes locally. */
export interface GuardFile { remote: string; path: string; optional?: boolean }

/** The files of the model, hub path -> local path. One ONNX graph is required (int8 or fp32). */
export const GUARD_FILES: readonly GuardFile[] = [
  { remote: 'onnx/config.json', path: 'config.json' },
  { remote: 'onnx/tokenizer.json', path: 'tokenizer.json' },
  { remote: 'onnx/tokenizer_config.json', path: 'tokenizer_config.json' },
  { remote: 'onnx/special_tokens_map.json', path: 'special_tokens_map.json', optional: true },
  { remote: 'onnx/added_tokens.json', path: 'added_tokens.json', optional: true },
  { remote: 'onnx/spm.model', path: 'spm.model', optional: true },
  { remote: 'onnx/model_quantized.onnx', path: 'onnx/model_quantized.onnx', optional: true },
  { remote: 'onnx/model.onnx', path: 'onnx/model.onnx', optional: true },
];

/** One recorded file. */
export interface RecordedFile { path: string; bytes: number; sha256: string }

/** Pins from `--pin <file>=<sha256>` (repeatable) and `--pins <json file>` ({"<file>": "<sha256>"}). @throws Error on a malformed pin. */
export function readPins(argv: readonly string[]): Map<string, string> {
  const pins = new Map<string, string>();
  const add = (path: string, sha: string): void => {
    if (!/^[0-9a-f]{64}$/i.test(sha)) throw new Error(`pin for ${path} is not a sha256 (64 hex digits)`);
    pins.set(path, sha.toLowerCase());
  };
  argv.forEach((a, i) => {
    if (a === '--pin') {
      const v = argv[i + 1] ?? '';
      const eq = v.lastIndexOf('=');
      if (eq <= 0) throw new Error('--pin needs <file>=<sha256>');
      add(v.slice(0, eq), v.slice(eq + 1));
    } else if (a === '--pins') {
      const obj = JSON.parse(readFileSync(argv[i + 1] ?? '', 'utf8')) as Record<string, unknown>;
      for (const [k, v] of Object.entries(obj)) add(k, String(v));
    }
  });
  return pins;
}

function candidates(src: string, name: string, f: GuardFile): string[] {
  return [join(src, f.path), join(src, f.remote), join(src, basename(f.path)), join(src, name, f.path), join(src, name, f.remote)];
}

/** Write the record of `files` into `target`. */
function writeRecord(target: string, name: string, source: string, files: RecordedFile[]): void {
  writeFileSync(join(target, RECORD_FILE), `${JSON.stringify({ name, source, recorded_at: new Date().toISOString(), files }, null, 2)}\n`);
}

async function copyFile(from: string, to: string): Promise<void> {
  mkdirSync(dirname(to), { recursive: true });
  const total = statSync(from).size;
  if (total < 4 * 1024 * 1024) { copyFileSync(from, `${to}.part`); renameSync(`${to}.part`, to); return; }
  const show = progress(basename(to), total);
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

/**
 * Import the classifier from folder `src` into `<modelsDir>/<name>/`, verifying pinned hashes and
 * recording every file's sha256. @returns the recorded files. @throws Error naming a missing
 * required file, a missing graph, or a file whose hash is not its pin (nothing is recorded then).
 */
export async function importGuardModel(src: string, modelsDir: string, opts: { name?: string; pins?: Map<string, string>; log?: (s: string) => void } = {}): Promise<RecordedFile[]> {
  const name = opts.name ?? GUARD_MODEL_NAME;
  const target = join(modelsDir, name);
  const pins = opts.pins ?? new Map<string, string>();
  const found: Array<{ f: GuardFile; from: string; sha: string; bytes: number }> = [];
  for (const f of GUARD_FILES) {
    const from = candidates(src, name, f).find((c) => existsSync(c));
    if (!from) {
      if (!f.optional) throw new Error(`${f.path} is missing from ${src}`);
      continue;
    }
    const sha = await sha256File(from);
    const pin = pins.get(f.path) ?? pins.get(f.remote);
    if (pin && pin !== sha) throw new Error(`${from}: sha256 ${sha} is not the pinned ${pin}; refusing`);
    found.push({ f, from, sha, bytes: statSync(from).size });
  }
  if (!found.some((x) => x.f.path.startsWith('onnx/'))) throw new Error(`no ONNX graph (onnx/model_quantized.onnx or onnx/model.onnx) in ${src}`);
  for (const x of found) {
    await copyFile(x.from, join(target, x.f.path));
    opts.log?.(`${x.f.path} sha256 ${x.sha}${pins.has(x.f.path) ? ' (matches the pin)' : ' (recorded)'}`);
  }
  const files = found.map((x) => ({ path: x.f.path, bytes: x.bytes, sha256: x.sha }));
  writeRecord(target, name, `import from ${src}`, files);
  return files;
}

async function download(url: string, dest: string, sha: string, redirects = 5): Promise<number> {
  const res = await request(url, { method: 'GET', headersTimeout: 30_000, bodyTimeout: 60_000 });
  if ([301, 302, 303, 307, 308].includes(res.statusCode) && redirects > 0) {
    await res.body.dump();
    return download(new URL(String(res.headers.location), url).href, dest, sha, redirects - 1);
  }
  if (res.statusCode !== 200) { await res.body.dump(); throw new Error(`${url} answered ${res.statusCode}`); }
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.part`;
  const out = createWriteStream(tmp);
  const h = createHash('sha256');
  const total = Number(res.headers['content-length'] ?? 0);
  const show = progress(basename(dest), total);
  let n = 0;
  for await (const chunk of res.body) {
    h.update(chunk as Buffer);
    n += (chunk as Buffer).length;
    if (total) show(n);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const got = h.digest('hex');
  if (got !== sha) { rmSync(tmp, { force: true }); throw new Error(`${dest}: sha256 ${got} is not the pinned ${sha}`); }
  renameSync(tmp, dest);
  return n;
}

/**
 * Download the classifier by name into `<modelsDir>/<name>/`. Every file fetched must be pinned by
 * the operator (local path or hub path); the graph fetched is the int8 one when it is pinned, else
 * the fp32 one. @throws Error listing the files without a pin, or naming a download that failed or
 * did not match its pin.
 */
export async function fetchGuardModel(modelsDir: string, opts: { base: string; pins: Map<string, string>; name?: string; log?: (s: string) => void }): Promise<RecordedFile[]> {
  const name = opts.name ?? GUARD_MODEL_NAME;
  const target = join(modelsDir, name);
  const pinOf = (f: GuardFile) => opts.pins.get(f.path) ?? opts.pins.get(f.remote);
  const graph = GUARD_FILES.find((f) => f.path === 'onnx/model_quantized.onnx' && pinOf(f)) ?? GUARD_FILES.find((f) => f.path === 'onnx/model.onnx')!;
  const wanted = GUARD_FILES.filter((f) => (!f.optional || f === graph || (f.optional && !f.path.startsWith('onnx/') && pinOf(f))));
  const unpinned = wanted.filter((f) => !pinOf(f)).map((f) => f.path);
  if (unpinned.length) throw new Error(`no pinned sha256 for ${unpinned.join(', ')}: pin each file with --pin <file>=<sha256> (or --pins <json>) from a source you trust`);
  const files: RecordedFile[] = [];
  for (const f of wanted) {
    const dest = join(target, f.path);
    const sha = pinOf(f)!;
    if (existsSync(dest) && (await sha256File(dest)) === sha) { opts.log?.(`${f.path} already present and verified`); files.push({ path: f.path, bytes: statSync(dest).size, sha256: sha }); continue; }
    const bytes = await download(`${opts.base}/${f.remote}`, dest, sha);
    files.push({ path: f.path, bytes, sha256: sha });
    opts.log?.(`${f.path} verified`);
  }
  writeRecord(target, name, `fetch from ${opts.base}`, files);
  return files;
}

/** The hub URL of the default classifier's files. */
export function guardBaseUrl(argv: readonly string[], env: Record<string, string | undefined>): string {
  const i = argv.indexOf('--base-url');
  return (i >= 0 ? argv[i + 1] : env.SVC_GUARDRAIL_MODEL_BASE_URL) || `https://huggingface.co/${GUARD_HF_REPO}/resolve/main`;
}
