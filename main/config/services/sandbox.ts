/**
 * Environment settings of the sandbox service, merged into its config slice by main/config.
 * Each key added here must be declared on the service's config type in its `contracts.ts`.
 */
import type { ExtrasContext, Env } from './types.js';

/**
 * Read the sandbox settings from `env`.
 * @throws ConfigError (from ../index.js helpers) naming the variable to set.
 */
export function sandboxSettings(_env: Env, _ctx: ExtrasContext): Record<string, unknown> {
  return {};
}
