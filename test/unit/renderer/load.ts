/**
 * Load a renderer module in Node for its unit tests.
 *
 * The renderer is compiled by Vite (extensionless imports, `moduleResolution: Bundler`, DOM types;
 * renderer/tsconfig.json type-checks it), and the root tsconfig, which builds the tests into
 * `dist/test/`, leaves it out: its imports do not resolve under NodeNext, and its output folder,
 * `dist/renderer/`, is the Vite build that `npm run build` empties. So the tests (built by the root
 * tsconfig like every other test, run by `npm test`) transpile the module they need, and the
 * relative modules it imports, with TypeScript's `transpileModule` into a folder next to the compiled
 * test (inside the repository, so `react`, `marked` ... resolve from its node_modules), then import
 * it. Only pure modules are loaded this way (no DOM at import time).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Repository root: the folder above this file holding package.json and renderer/. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'renderer', 'src'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('repository root not found above the compiled test');
}

const ROOT = repoRoot();
const OUT = fileURLToPath(new URL('./.renderer-build/', import.meta.url));
const done = new Set<string>();

/** The source file a relative specifier names (`./model`, `./model.js`, `../x/index`). */
function resolveSource(fromFile: string, spec: string): string {
  const base = resolve(dirname(fromFile), spec);
  const stem = base.replace(/\.(js|jsx|ts|tsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, join(stem, 'index.ts'), join(stem, 'index.tsx')]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`cannot resolve ${spec} from ${relative(ROOT, fromFile)}`);
}

/** Where the transpiled copy of `source` goes (the repository layout, mirrored under OUT). */
function outputOf(source: string): string {
  return join(OUT, relative(ROOT, source)).replace(/\.(ts|tsx)$/, '.js');
}

/** Transpile `source` and, first, every relative module it imports. */
function build(source: string): void {
  if (done.has(source)) return;
  done.add(source);
  const out = ts.transpileModule(readFileSync(source, 'utf8'), {
    fileName: source,
    compilerOptions: {
      module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, jsx: ts.JsxEmit.ReactJSX,
      verbatimModuleSyntax: true, isolatedModules: true, sourceMap: false,
    },
  }).outputText;
  // Relative specifiers point at the transpiled copies; type-only imports are already gone.
  const code = out.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\2/g, (_m, head: string, q: string, spec: string) => {
    const target = resolveSource(source, spec);
    build(target);
    let rel = relative(dirname(outputOf(source)), outputOf(target)).split(sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${head}${q}${rel}${q}`;
  });
  const file = outputOf(source);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, code);
}

/** Import `renderer/src/<path>` (e.g. `chat/turn-reducer.ts`) as Node ESM. */
export async function loadRenderer<M>(path: string): Promise<M> {
  const source = join(ROOT, 'renderer', 'src', path);
  build(source);
  return import(pathToFileURL(outputOf(source)).href) as Promise<M>;
}
