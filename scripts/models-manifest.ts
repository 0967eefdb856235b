/**
 * The pinned embedding model (Xenova/all-MiniLM-L6-v2): every file with its size and sha256
 * (ONNX hashes from ../shared/assets/README.md; tokenizer and config hashes of the same release).
 * `models:fetch` downloads and `models:import` copies exactly these, verified, into
 * `<models dir>/all-MiniLM-L6-v2/` (the first folder the product searches: SVC_MODELS_DIR, else
 * `<data dir>/models`).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { defaultDataDir } from '../main/config/index.js';

/** One pinned file. */
export interface PinnedFile { path: string; bytes: number; sha256: string; optional?: boolean }

export const MODEL_NAME = 'all-MiniLM-L6-v2';
export const HF_REPO = 'Xenova/all-MiniLM-L6-v2';

export const PINNED: readonly PinnedFile[] = [
  { path: 'config.json', bytes: 650, sha256: '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7' },
  { path: 'special_tokens_map.json', bytes: 125, sha256: 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3' },
  { path: 'tokenizer.json', bytes: 711_661, sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0' },
  { path: 'tokenizer_config.json', bytes: 366, sha256: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3' },
  { path: 'vocab.txt', bytes: 231_508, sha256: '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3' },
  { path: 'onnx/model_quantized.onnx', bytes: 22_972_370, sha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1' },
  { path: 'onnx/model.onnx', bytes: 90_387_606, sha256: '759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e', optional: true },
];

/** Where models go: `--dir`, else SVC_MODELS_DIR, else `<SVC_DATA_DIR or the OS app-data folder>/models`. */
export function modelsDir(argv: string[], env: Record<string, string | undefined>): string {
  const i = argv.indexOf('--dir');
  if (i >= 0 && argv[i + 1]) return argv[i + 1]!;
  if (env.SVC_MODELS_DIR) return env.SVC_MODELS_DIR;
  return join(env.SVC_DATA_DIR || defaultDataDir(env), 'models');
}

/** sha256 of a file, hex. */
export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path).on('data', (c) => h.update(c)).on('error', reject).on('end', () => resolve(h.digest('hex')));
  });
}

/** A one-line progress printer on stderr. */
export function progress(label: string, total: number): (done: number) => void {
  let last = -1;
  return (done) => {
    const pct = total ? Math.floor((done / total) * 100) : 100;
    if (pct === last) return;
    last = pct;
    process.stderr.write(`\r${label} ${pct}% (${(done / 1048576).toFixed(1)} / ${(total / 1048576).toFixed(1)} MiB)${pct === 100 ? '\n' : ''}`);
  };
}
