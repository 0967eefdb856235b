/** Shared types of the per-service settings readers (main/config/services/*.ts). */

/** The environment, as main/config sees it. */
export type Env = Record<string, string | undefined>;

/** What a settings reader may know beyond the environment. */
export interface ExtrasContext {
  /** Resolved data directory. */
  dataDir: string;
  /** Repository root (holds package.json, migrations/, assets/). */
  repoRoot: string;
  production: boolean;
}
