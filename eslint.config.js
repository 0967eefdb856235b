// ESLint flat config. Besides typescript-eslint's recommended rules, it keeps the boundaries of
// DESIGN.md: services never import electron; a service imports another service only through that
// service's `contracts.ts` (or `contracts/` folder), `client.ts` or `index.ts`; the renderer imports
// from services only their Node-free `contracts.ts` (values allowed); only a service's store/ (and
// the shared db opener) imports better-sqlite3; only main/config reads process.env. The renderer
// also follows the rules of hooks (eslint-plugin-react-hooks).
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { readdirSync } from 'node:fs';

const noElectron = { name: 'electron', message: 'services/** never imports electron (DESIGN.md layout)' };
const noSqlite = { name: 'better-sqlite3', message: 'only a service\'s store/ imports better-sqlite3 (DESIGN.md layout)' };

/** Every folder under services/ (the services, `shared` and library folders such as `embedder`). */
const SERVICE_DIRS = readdirSync(new URL('./services/', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory()).map((d) => d.name).sort();

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The door of service `b`: `src/contracts.ts`, a `src/contracts/` folder, `src/client.ts` or
 * `src/index.ts` (imports name them with the `.js` suffix of NodeNext).
 */
const DOOR = 'src/(?:contracts(?:\\.js|/[^/]+\\.js)|client\\.js|index\\.js)$';

/**
 * `no-restricted-imports` pattern for a file under services/<own>/: any import that climbs into
 * services/<b>/ (b != own, b != shared) other than through its door.
 */
function crossServicePattern(own) {
  const others = SERVICE_DIRS.filter((d) => d !== own && d !== 'shared').map(escape);
  return {
    regex: `(?:^|/)\\.\\./(?:${others.join('|')})/(?!${DOOR})`,
    message: 'a service imports another service only through its src/contracts.ts (or contracts/), src/client.ts or src/index.ts (DESIGN.md layout)',
  };
}

/** The renderer: from services only a service's `src/contracts.ts` or `src/contracts/*.ts`, values allowed. */
const rendererServicesPattern = {
  regex: '(?:^|/)services/(?!(?!shared/)[^/]+/src/contracts(?:\\.js|\\.ts|/[^/]+\\.(?:js|ts))?$)',
  message: 'the renderer imports from services only a service\'s Node-free src/contracts.ts (DESIGN.md layout)',
};

export default tseslint.config(
  { ignores: ['dist/**', '.build/**', 'node_modules/**', 'renderer/dist/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  // One block per folder under services/ (a later block for the same file would replace the rule's options).
  ...SERVICE_DIRS.flatMap((dir) => [
    {
      files: [`services/${dir}/**/*.ts`],
      ignores: ['services/*/src/store/**', 'services/shared/db/**'],
      rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [noElectron, noSqlite], patterns: [crossServicePattern(dir)] }] },
    },
    {
      files: [`services/${dir}/src/store/**/*.ts`, ...(dir === 'shared' ? ['services/shared/db/**/*.ts'] : [])],
      rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [noElectron], patterns: [crossServicePattern(dir)] }] },
    },
  ]),
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noSqlite, noElectron], patterns: [rendererServicesPattern] }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      // Reports where the React Compiler would skip memoising (TanStack Virtual); the renderer is not
      // compiled by it, so there is nothing to fix.
      'react-hooks/incompatible-library': 'off',
    },
  },
  {
    files: ['main/ipc/common/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [noElectron], patterns: [{ group: ['node:*'], message: 'main/ipc/common is plain TypeScript (no Node or DOM)' }],
      }],
    },
  },
  {
    files: ['services/**/*.ts', 'renderer/**/*.{ts,tsx}', 'main/supervisor/**/*.ts', 'main/app/**/*.ts', 'main/ipc/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'only main/config reads process.env (DESIGN.md layout)' }],
    },
  },
);
