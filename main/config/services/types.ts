/** Shared types of the per-service settings readers (main/config/services/*.ts). */
import type { Env } from '../env.js';

export type { Env };

/** What a settings reader may know beyond the environment. */
export interface ExtrasContext {
  /** Resolved data directory. */
  dataDir: string;
  /** Repository root (holds package.json, migrations/, assets/). */
  repoRoot: string;
  production: boolean;
}

/**
 * A settings reader: validates the service's variables in `env` and returns its settings, every
 * default filled in (the defaults live only in the readers). @throws ConfigError naming the variable.
 */
export type SettingsReader<S> = (env: Env, ctx: ExtrasContext) => S;

/**
 * Settings of a service that has none yet (dirauth: its routes, and its `contracts.ts`, land with
 * the issue that owns them).
 */
export type NoSettings = Record<string, never>;
