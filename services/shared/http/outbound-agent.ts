/**
 * The one undici dispatcher for fetches of SUPPLIED URLs (issue 11 item 8): every connection it
 * opens is checked by `outbound.ts` at connect time, against the port of its origin, and goes to
 * exactly the addresses that were checked.
 *
 * - Host names: the connector's `lookup` (undici `connect: { lookup }`, handed to `net.connect`)
 *   resolves, refuses when any address is refused, and gives `net` those same addresses; there is no
 *   second resolution a DNS-rebinding server could answer differently.
 * - IP literals: `net.connect` skips `lookup` for them, so the connector checks the literal before
 *   it connects.
 *
 * A refused connection fails the request with `UrlNotAllowedError` (code `url_not_allowed`) before
 * a byte is sent. Keep-alive and Happy Eyeballs stay undici's and Node's own (one pool per origin).
 * Redirects are not followed by `request()`/`dispatcher.request()`; callers that follow one must
 * send the new URL through this agent again.
 *
 * With egress control on (issue 19 item 6) the answer is `egress-agent.ts`'s proxy dispatcher instead.
 *
 * Inference providers (registration probe and calls) and the price list use it; MCP servers,
 * connectors and OAuth/OIDC endpoints must use it too when they arrive.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, Pool, buildConnector, type Dispatcher } from 'undici';
import { createEgressAgent } from './egress-agent.js';
import { effectivePort, refusalOf, resolveAllowed, type OutboundPolicy } from './outbound.js';

/**
 * A `net` lookup that resolves `hostname` and hands over only addresses allowed on `port`.
 * Answers both shapes `net` asks for (`all: true` with Happy Eyeballs, else one address).
 */
export function guardedLookup(port: number, policy: OutboundPolicy): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    resolveAllowed(hostname, port, policy, family).then((addresses: LookupAddress[]) => {
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    }, (err: NodeJS.ErrnoException) => callback(err, ''));
  };
}

/**
 * An undici `Agent` whose connections reach only allowed addresses (see the module comment).
 * `options` are the usual `Agent` options (timeouts, keep-alive, connections); `connect` and
 * `factory` are this module's.
 * @example const d = createOutboundAgent({ own: workstationEndpoints(cfg) }, { headersTimeout: 5000 });
 *   await request(url, { dispatcher: d }); // rejects with UrlNotAllowedError for the gateway's URL
 */
export function createOutboundAgent(policy: OutboundPolicy, options: Omit<Agent.Options, 'connect' | 'factory'> = {}): Dispatcher {
  // Issue 19 item 6: with egress on, through the workstation's forward proxy (egress-agent.ts).
  if (policy.own.egress && policy.own.egress.policy !== 'off') return createEgressAgent(policy, policy.own.egress, options);
  return new Agent({
    ...options,
    factory: (origin, agentOpts) => {
      const opts = agentOpts as Pool.Options;
      const port = effectivePort(new URL(String(origin)));
      const base = buildConnector({ lookup: guardedLookup(port, policy), ...(opts.connectTimeout !== undefined ? { timeout: opts.connectTimeout } : {}) });
      const connect: buildConnector.connector = (c, callback) => {
        if (isIP(c.hostname)) {
          const refused = refusalOf(c.hostname, port, policy.own);
          if (refused) { callback(refused, null); return; }
        }
        base(c, callback);
      };
      return new Pool(origin, { ...opts, connect });
    },
  });
}
