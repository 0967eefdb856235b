/**
 * Environment settings of the dirauth service, merged into its config slice by main/config.
 * The service has no settings (nor a `contracts.ts`) yet: when it gets one, its settings type moves
 * there and this reader returns it.
 */
import type { ExtrasContext, Env, NoSettings } from './types.js';

/**
 * Read the dirauth settings from `env`.
 * @throws ConfigError naming the variable to set.
 */
export function dirauthSettings(_env: Env, _ctx: ExtrasContext): NoSettings {
  return {};
}
