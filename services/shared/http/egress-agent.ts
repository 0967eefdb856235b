/**
 * Outbound fetches of supplied URLs under egress control (issue 19 item 6). With the policy on,
 * every such fetch goes through the workstation's forward proxy (Squid, main/egress/squid.ts) as an
 * HTTP CONNECT tunnel (undici `ProxyAgent`, `X-Egress-Service: <service>` on the CONNECT so the access
 * log names the caller), loopback destinations included; the own-endpoint guard of `outbound.ts`
 * still runs first (the target is resolved and refused before the proxy is asked). `enforce` with no
 * running proxy fails closed: every request fails with `egress_unavailable` before a byte is sent.
 */
import { ProxyAgent, type Dispatcher } from 'undici';
import { isIP } from 'node:net';
import { DomainError } from '../kit/domain-error.js';
import { effectivePort, refusalOf, resolveAllowed, type EgressRoute, type OutboundPolicy } from './outbound.js';

/** Error code of a fetch refused because `enforce` has no proxy (fail closed). */
export const EGRESS_UNAVAILABLE = 'egress_unavailable';

/** Options of the underlying agent (the usual `Agent` options). */
export type EgressAgentOptions = Omit<ProxyAgent.Options, 'uri' | 'headers' | 'factory' | 'connect'>;

type DispatchFn = Dispatcher['dispatch'];
type Handler = Parameters<DispatchFn>[1] & { onResponseError?: (c: unknown, e: Error) => void; onError?: (e: Error) => void };

/** Fail `handler` with `err` in whichever handler style it speaks. */
function fail(handler: Handler, err: Error): void {
  if (typeof handler.onResponseError === 'function') handler.onResponseError(null, err);
  else handler.onError?.(err);
}

/**
 * The dispatcher for supplied URLs when `route.policy` is not `off`: the guard, then the proxy.
 * @example createEgressAgent({ own }, own.egress!, { headersTimeout: 5000 })
 */
export function createEgressAgent(policy: OutboundPolicy, route: EgressRoute, options: EgressAgentOptions = {}): Dispatcher {
  if (!route.proxyUrl) {
    // No proxy: observe degrades to direct? No: with egress on, nothing leaves unlogged. Fail closed.
    const closed = new ProxyAgent({ ...options, uri: 'http://127.0.0.1:9' });
    return closed.compose((_dispatch: DispatchFn) => (_opts, handler) => {
      fail(handler as Handler, new DomainError(EGRESS_UNAVAILABLE, `egress is ${route.policy} but the proxy is not running${route.reason ? `: ${route.reason}` : ''}`));
      return true;
    });
  }
  const agent = new ProxyAgent({ ...options, uri: route.proxyUrl, headers: { 'x-egress-service': route.service } });
  return agent.compose((dispatch: DispatchFn) => (opts, handler) => {
    let origin: URL;
    try { origin = new URL(String(opts.origin)); } catch (err) { fail(handler as Handler, err as Error); return true; }
    const port = effectivePort(origin);
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const refused = refusalOf(host, port, policy.own);
      if (refused) { fail(handler as Handler, refused); return true; }
      return dispatch(opts, handler);
    }
    resolveAllowed(host, port, policy).then(() => dispatch(opts, handler), (err: Error) => fail(handler as Handler, err));
    return true;
  });
}
