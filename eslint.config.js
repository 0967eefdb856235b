// ESLint flat config. Besides typescript-eslint's recommended rules, it keeps the boundaries of
// DESIGN.md: services never import electron; the renderer imports only types from services; only a
// service's store/ (and the shared db opener) imports better-sqlite3; only main/config reads process.env.
import tseslint from 'typescript-eslint';

const noElectron = { name: 'electron', message: 'services/** never imports electron (DESIGN.md layout)' };
const noSqlite = { name: 'better-sqlite3', message: 'only a service\'s store/ imports better-sqlite3 (DESIGN.md layout)' };

export default tseslint.config(
  { ignores: ['dist/**', '.build/**', 'node_modules/**', 'renderer/dist/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['services/**/*.ts'],
    ignores: ['services/*/src/store/**', 'services/shared/db/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [noElectron, noSqlite] }] },
  },
  {
    files: ['services/*/src/store/**/*.ts', 'services/shared/db/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [noElectron] }] },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [noSqlite, noElectron],
        patterns: [{ group: ['**/services/**', '../services/*', '../../services/*'], allowTypeImports: true, message: 'the renderer imports only types from services (use import type)' }],
      }],
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
