/**
 * Changes one agent runtime makes that the other runtimes of a scaled-out deployment must see at
 * once (issue 21: "a team ... several runtimes"): the stores are shared, but each runtime keeps
 * what it derived from them in memory, so a write through one runtime tells the others to drop
 * or reload theirs:
 * - `mcp_server`: a server registered, changed or removed: its tools join or leave the registry;
 * - `permission_profiles`: a tenant's profiles changed: the cached list is dropped.
 *
 * Over the shared bus (Redis pub/sub, `svc:runtime-changes`) when REDIS_URL is set; without it there
 * is one runtime and nothing to send. A message names its sender, which ignores its own. Delivery
 * is at most once: a runtime that missed one converges at its next start (MCP) or at the next
 * change (profiles).
 */
import { randomUUID } from 'node:crypto';
import type { SharedBus } from '../../../shared/shared-bus.js';

/** What changed. */
export type RuntimeChange =
  | { kind: 'mcp_server'; op: 'changed' | 'removed'; tenant_id: string; id: string }
  | { kind: 'permission_profiles'; tenant_id: string };

/** The bus channel. */
export const RUNTIME_CHANGES_CHANNEL = 'svc:runtime-changes';

/** Tell the other runtimes; hear theirs. */
export class RuntimeChangeFeed {
  private readonly instance = randomUUID();

  /** @param bus the shared bus, or null (one runtime: `publish` does nothing). */
  constructor(private readonly bus: SharedBus | null) {}

  /** Tell the other runtimes about `change` (fire and forget). */
  publish(change: RuntimeChange): void {
    this.bus?.publish(RUNTIME_CHANGES_CHANNEL, JSON.stringify({ from: this.instance, change }));
  }

  /** Call `fn` for each change another runtime made (malformed messages are skipped). @returns unsubscribe. */
  subscribe(fn: (change: RuntimeChange) => void): () => void {
    if (!this.bus) return () => {};
    return this.bus.subscribe(RUNTIME_CHANGES_CHANNEL, (raw) => {
      let msg: { from?: unknown; change?: RuntimeChange };
      try { msg = JSON.parse(raw) as typeof msg; } catch { return; }
      if (msg.from === this.instance || !msg.change || typeof msg.change.tenant_id !== 'string') return;
      fn(msg.change);
    });
  }
}
