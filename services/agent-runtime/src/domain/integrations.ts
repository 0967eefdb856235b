/**
 * The caller's integrations and their state (issue 13 item 6; spec "Agent runtime surfaces":
 * `GET /v1/user/integrations/status`). Each kind of integration is a source registered by name: a
 * function that answers the caller's items. Later issues add theirs (per-user OAuth connectors, MCP
 * servers, the paired phone of issue 14) by registering a source; until then the built-in sources
 * answer what exists today: no OAuth connectors, no MCP servers, a phone that is not configured.
 *
 * A source that throws or does not answer within the deadline is shown as one `error` item under
 * its name, so one broken source never hides the others.
 */
import type { IntegrationStatus } from '../contracts.js';
import type { OverviewPeers } from './overview.js';

/** Whose integrations: the caller, with the stamped headers to forward to peers. */
export interface IntegrationOwner {
  tenantId: string;
  userId: string;
  headers: Record<string, string>;
}

/** A source of integrations: the caller's items of one kind (none is an empty list). */
export type IntegrationSource = (who: IntegrationOwner, signal: AbortSignal) => IntegrationStatus[] | Promise<IntegrationStatus[]>;

/** Default deadline of one source, ms. */
export const INTEGRATION_SOURCE_TIMEOUT_MS = 2000;

/** The registered sources. */
export class IntegrationRegistry {
  private readonly sources = new Map<string, IntegrationSource>();

  constructor(private readonly timeoutMs = INTEGRATION_SOURCE_TIMEOUT_MS) {}

  /**
   * Register (or replace) the source named `name` (e.g. `oauth`, `mcp`, `phone`); items are listed
   * in registration order.
   */
  register(name: string, source: IntegrationSource): void {
    this.sources.set(name, source);
  }

  /** Names of the registered sources, in order. */
  names(): string[] {
    return [...this.sources.keys()];
  }

  /** Every source's items for `who`, in registration order. Never throws. */
  async status(who: IntegrationOwner): Promise<IntegrationStatus[]> {
    const answers = await Promise.all([...this.sources].map(([name, source]) => this.ask(name, source, who)));
    return answers.flat();
  }

  private async ask(name: string, source: IntegrationSource, who: IntegrationOwner): Promise<IntegrationStatus[]> {
    const ac = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Not unref'd: the caller awaits the answer; the timer is cleared as soon as the source answers.
    const deadline = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => { ac.abort(); resolve('timeout'); }, this.timeoutMs); });
    try {
      const out = await Promise.race([Promise.resolve().then(() => source(who, ac.signal)), deadline]);
      if (out === 'timeout') return [failed(name, `the ${name} status did not answer within ${this.timeoutMs} ms`)];
      return out;
    } catch {
      return [failed(name, `the ${name} status check failed`)];
    } finally {
      clearTimeout(timer);
    }
  }
}

function failed(name: string, detail: string): IntegrationStatus {
  return { id: name, kind: name, name, state: 'error', detail };
}

/** The phone as it is before pairing exists (issue 14). */
export const PHONE_NOT_CONFIGURED: IntegrationStatus = {
  id: 'phone', kind: 'phone', name: 'Phone', state: 'not_configured', detail: 'No phone is paired with this workstation yet.',
};

/**
 * Register the sources of what exists today: `oauth` (per-user OAuth connectors: none yet), `mcp`
 * (MCP servers: none yet) and `phone` (not configured until issue 14 pairs one). A later issue
 * replaces a source by registering its own under the same name.
 */
export function registerBuiltinIntegrations(r: IntegrationRegistry): IntegrationRegistry {
  r.register('oauth', () => []);
  r.register('mcp', () => []);
  r.register('phone', () => [PHONE_NOT_CONFIGURED]);
  return r;
}

/**
 * The `phone` source (issue 14): the caller's paired phones from the auth service. Paired ones:
 * `connected` with how many and when one was last seen; none: `not_configured`; the auth service
 * not answering: thrown, so the registry shows an `error` item.
 */
export function phoneSource(peers: Pick<OverviewPeers, 'devices'>): IntegrationSource {
  return async (who) => {
    if (!peers.devices) return [PHONE_NOT_CONFIGURED];
    const r = await peers.devices(who.headers);
    if (!r.ok) throw new Error(r.error);
    const paired = r.body.items.filter((d) => d.state === 'paired');
    if (!paired.length) return [PHONE_NOT_CONFIGURED];
    const seen = paired.map((d) => d.last_seen_at ?? '').filter(Boolean).sort().pop();
    const names = paired.map((d) => d.name).filter(Boolean).join(', ');
    return [{
      id: 'phone', kind: 'phone', name: 'Phone', state: 'connected',
      detail: `${paired.length} phone${paired.length > 1 ? 's' : ''} paired${names ? ` (${names})` : ''}${seen ? `; last seen ${seen}` : ''}.`,
    }];
  };
}
