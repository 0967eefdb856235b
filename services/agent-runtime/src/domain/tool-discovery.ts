/**
 * Plug-in tool discovery (issue 5 item 3): a service's tools are registered while the service
 * answers `/readyz` and withdrawn when it stops answering. Peers start in parallel with the
 * runtime, so the sources are probed at once, again soon after (0.5, 1.5, 3.5 and 7.5 s), then at
 * a steady pace.
 */
import type { PluginSource, ToolPlugin } from '../contracts.js';
import type { ToolRegistry } from './tool-registry.js';

/** Delays of the probes that follow the first one, ms after start. */
export const EARLY_PROBES_MS = [500, 1500, 3500, 7500] as const;

/** What discovery needs. */
export interface DiscoveryDeps {
  sources: readonly PluginSource[];
  registry: ToolRegistry;
  /** Whether `service` answers its readiness probe now. Never throws. */
  isReady(service: PluginSource['service']): Promise<boolean>;
  /** Import the plug-in of a source; null when it does not exist or exports none. Never throws. */
  load(source: PluginSource): Promise<ToolPlugin | null>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** Probe every source once: register the tools of a source that came up, withdraw those of one that went. */
export async function probeSources(d: DiscoveryDeps): Promise<void> {
  await Promise.all(d.sources.map(async (src) => {
    const up = await d.isReady(src.service);
    if (!up) {
      if (d.registry.has(src.service)) { d.registry.unregister(src.service); d.log.warn({ source: src.service }, 'tool source withdrawn'); }
      return;
    }
    if (d.registry.has(src.service)) return;
    const plugin = await d.load(src);
    if (plugin?.tools.length) d.log.info({ source: src.service, tools: d.registry.register(src.service, plugin.tools) }, 'tools registered');
  }));
}

/**
 * Start probing: now, at `EARLY_PROBES_MS`, then every `everyMs` (0 = no steady probing).
 * @returns how to stop.
 */
export function startDiscovery(d: DiscoveryDeps, everyMs: number): () => void {
  const probe = (): void => { void probeSources(d); };
  probe();
  const early = EARLY_PROBES_MS.map((ms) => { const t = setTimeout(probe, ms); t.unref(); return t; });
  const steady = everyMs > 0 ? setInterval(probe, everyMs) : null;
  steady?.unref();
  return () => {
    if (steady) clearInterval(steady);
    for (const t of early) clearTimeout(t);
  };
}
