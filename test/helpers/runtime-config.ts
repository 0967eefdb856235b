/**
 * Complete agent-runtime settings for tests that start the runtime without main/config: the
 * settings reader's own defaults (main/config/services/agent-runtime.ts with an empty
 * environment), overridden where a test says so.
 */
import { agentRuntimeSettings } from '../../main/config/services/agent-runtime.js';
import type { AgentRuntimeSettings } from '../../services/agent-runtime/src/contracts.js';

/** The default settings with `overrides` applied. */
export function runtimeSettings(overrides: Partial<AgentRuntimeSettings> = {}): AgentRuntimeSettings {
  return { ...agentRuntimeSettings({}, { dataDir: '/nonexistent', repoRoot: process.cwd(), production: false }), ...overrides };
}
