/**
 * Finding the embedding model on disk, in DESIGN.md's order: SVC_MODELS_DIR, the packaged
 * `assets/models`, then `<dataDir>/models`. A model folder holds `config.json`, `tokenizer.json`
 * and `onnx/model_quantized.onnx` (int8, preferred) or `onnx/model.onnx` (fp32). Both the flat
 * layout (`<dir>/all-MiniLM-L6-v2/`) and the hub layout (`<dir>/Xenova/all-MiniLM-L6-v2/`) are found.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** A model found on disk. */
export interface LocatedModel {
  /** Folder given to transformers.js as `env.localModelPath`. */
  root: string;
  /** Model id relative to `root`. */
  id: string;
  /** Absolute model folder. */
  path: string;
  /** `q8` (model_quantized.onnx) or `fp32` (model.onnx). */
  dtype: 'q8' | 'fp32';
  file: string;
}

/** Look for `model` in `dirs`, in order. @returns null when no folder holds a complete model. */
export function locateModel(dirs: readonly string[], model: string): LocatedModel | null {
  const ids = model.includes('/') ? [model] : [model, `Xenova/${model}`, `sentence-transformers/${model}`];
  for (const root of dirs) {
    for (const id of ids) {
      const path = join(root, id);
      if (!existsSync(join(path, 'config.json')) || !existsSync(join(path, 'tokenizer.json'))) continue;
      if (existsSync(join(path, 'onnx', 'model_quantized.onnx'))) return { root, id, path, dtype: 'q8', file: 'model_quantized.onnx' };
      if (existsSync(join(path, 'onnx', 'model.onnx'))) return { root, id, path, dtype: 'fp32', file: 'model.onnx' };
    }
  }
  return null;
}
