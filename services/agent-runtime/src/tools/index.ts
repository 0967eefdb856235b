/**
 * Built-in tools and the loader of the tool plug-ins other services export.
 *
 * Plug-in sources (issue 5 item 3): a service that offers agent tools exports `plugin: ToolPlugin`
 * (contracts.ts) from `services/<name>/src/tools.ts`. `pluginSources()` lists the known ones; the
 * runtime imports each once its service answers `/readyz` (domain/tool-discovery.ts). Modules that
 * do not exist yet are simply skipped.
 */
import type { AgentTool, PluginSource, ToolPlugin } from '../contracts.js';
import { calculatorTool } from './calculator.js';
import { currentTimeTool } from './current-time.js';

/** The built-in tools. */
export const BUILTIN_TOOLS: readonly AgentTool[] = [currentTimeTool, calculatorTool];

/** The built-in tools as a plug-in (source `builtin`). */
export const BUILTIN_PLUGIN: ToolPlugin = { name: 'builtin', tools: BUILTIN_TOOLS };

/** The plug-in sources the runtime looks for (paths relative to this file, in src/ or dist/). */
export function pluginSources(): PluginSource[] {
  return (['knowledge', 'memory', 'sandbox'] as const).map((service) => ({
    service, moduleUrl: new URL(`../../../${service}/src/tools.js`, import.meta.url).href,
  }));
}

/**
 * Import a source's module and return its `plugin` with the tools that have the contract's shape
 * (an `execute` function and a function definition).
 * @returns null when the module does not exist or exports no plug-in. Never throws.
 */
export async function loadPlugin(source: PluginSource): Promise<ToolPlugin | null> {
  try {
    const mod = await import(source.moduleUrl) as { plugin?: Partial<ToolPlugin> };
    const tools = mod.plugin?.tools;
    if (!Array.isArray(tools)) return null;
    return {
      name: typeof mod.plugin?.name === 'string' ? mod.plugin.name : source.service,
      tools: (tools as AgentTool[]).filter((t) => t && typeof t.execute === 'function' && t.definition?.type === 'function'),
    };
  } catch {
    return null;
  }
}
