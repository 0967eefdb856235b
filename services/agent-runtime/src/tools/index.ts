/**
 * Built-in tools and the loader of tools that other services export.
 *
 * Plug-in sources (issue 5 item 3): a service that offers agent tools exports
 * `tools: ToolModule[]` (or a default export of that list) from `services/<name>/src/tools.ts`.
 * `pluginSources()` lists the known ones; the runtime imports each once its service answers
 * `/readyz` and registers its tools under the service's name (and withdraws them when it stops
 * answering). Modules that do not exist yet are simply skipped.
 */
import type { ToolModule } from '../contracts.js';
import { calculatorTool } from './calculator.js';
import { currentTimeTool } from './current-time.js';

/** The built-in tools. */
export const BUILTIN_TOOLS: readonly ToolModule[] = [currentTimeTool, calculatorTool];

/** A service whose tools plug in when it answers. */
export interface PluginSource {
  /** Service name (also the registry source name). */
  service: 'knowledge' | 'memory' | 'sandbox';
  /** Module URL to import. */
  moduleUrl: string;
}

/** The plug-in sources the runtime looks for (paths relative to this file, in src/ or dist/). */
export function pluginSources(): PluginSource[] {
  return (['knowledge', 'memory', 'sandbox'] as const).map((service) => ({
    service, moduleUrl: new URL(`../../../${service}/src/tools.js`, import.meta.url).href,
  }));
}

/** Import a plug-in module and return its tools; null when it does not exist or exports none. */
export async function loadPlugin(moduleUrl: string): Promise<ToolModule[] | null> {
  try {
    const mod = await import(moduleUrl) as { tools?: unknown; default?: unknown };
    const list = Array.isArray(mod.tools) ? mod.tools : Array.isArray(mod.default) ? mod.default : null;
    if (!list) return null;
    return (list as ToolModule[]).filter((t) => t && typeof t.execute === 'function' && t.definition?.type === 'function');
  } catch {
    return null;
  }
}
