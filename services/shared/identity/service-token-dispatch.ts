/**
 * The outbound half of service tokens (spec "Service-to-service", "Identity headers": the user's
 * bearer is swapped for a service token on internal hops; issue 15 item 4).
 *
 * An undici dispatch interceptor adds `Authorization: Bearer <service token>` to every request to
 * a sibling service's origin (`serviceUrls`, the gateway excluded: it takes users' bearers, never a
 * service token) that carries no `Authorization` of its own. The kit installs it on the worker's
 * global dispatcher (so every `fetch` and undici `request()` of every client of the service is
 * covered, streams and SSE included) and `withServiceTokens(pool)` composes it onto the few
 * dedicated pools (the gateway's upstream pools, observability's clients). Paths under `/idp/` are
 * left alone: the IdP authenticates its own clients, and the token request itself carries Basic
 * client authentication. With a cached token the cost is one header object copy; otherwise the
 * request waits for the token (single flight, retried while auth starts).
 *
 * One service runs per worker thread, so one installation per isolate is the normal case; a second
 * `installServiceTokens` (several services in one test process) replaces the first's source.
 */
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import type { ServiceTokenSource } from './service-token.js';

/** The installed state of this isolate. */
interface Installed {
  origins: Set<string>;
  source: ServiceTokenSource;
}

let installed: Installed | null = null;
let globalWrapped = false;

/** The origin (`http://host:port`) of a URL, or null. */
function originOf(u: string | URL | undefined): string | null {
  if (u === undefined) return null;
  try { return (typeof u === 'string' ? new URL(u) : u).origin; } catch { return null; }
}

/** True when `headers` (any form undici accepts) already carries `authorization`. */
function hasAuthorization(headers: Dispatcher.DispatchOptions['headers']): boolean {
  if (!headers) return false;
  if (Array.isArray(headers)) {
    if (headers.length && Array.isArray(headers[0])) return (headers as unknown as Array<[string, string]>).some(([k]) => k.toLowerCase() === 'authorization');
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === 'authorization') return true;
    return false;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k] of headers as Iterable<[string, string]>) if (k.toLowerCase() === 'authorization') return true;
    return false;
  }
  const obj = headers as Record<string, unknown>;
  if (obj.authorization !== undefined) return true;
  for (const k in obj) if (k.length === 13 && k.toLowerCase() === 'authorization') return true;
  return false;
}

/** `headers` plus `authorization`, as a new value of the same kind. */
function withBearer(headers: Dispatcher.DispatchOptions['headers'], token: string): Dispatcher.DispatchOptions['headers'] {
  const value = `Bearer ${token}`;
  if (!headers) return { authorization: value };
  if (Array.isArray(headers)) {
    if (headers.length && Array.isArray(headers[0])) return [...(headers as unknown as Array<[string, string]>), ['authorization', value]] as unknown as string[];
    return [...headers, 'authorization', value];
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') return [...(headers as Iterable<[string, string]>), ['authorization', value]] as unknown as string[];
  return { ...(headers as Record<string, string>), authorization: value };
}

/**
 * Send `opts` through `dispatch`, with the bearer of `src` when it goes to one of `origins` (see the
 * module comment). When the token cannot be had the request goes out without one (the receiver
 * answers 401 with a stable code, which the caller reports like any refusal).
 * @param origin the origin of a pool (its requests carry none in `opts`).
 */
function dispatchWithToken(
  dispatch: Dispatcher.Dispatch, opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler,
  origins: ReadonlySet<string>, src: ServiceTokenSource, origin: string | null,
): boolean {
  const target = opts.origin !== undefined ? originOf(opts.origin) : origin;
  if (target === null || !origins.has(target) || opts.path.startsWith('/idp/') || hasAuthorization(opts.headers)) return dispatch(opts, handler);
  const token = src.peek();
  if (token !== null) return dispatch({ ...opts, headers: withBearer(opts.headers, token) }, handler);
  src.get().then(
    (t) => dispatch({ ...opts, headers: withBearer(opts.headers, t) }, handler),
    () => dispatch(opts, handler),
  );
  return true;
}

/** An interceptor adding `source`'s bearer to requests for `origins` (`origin`: a pool's own). */
export function serviceTokenInterceptor(origins: ReadonlySet<string>, source: ServiceTokenSource, origin: string | null = null): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => dispatchWithToken(dispatch, opts, handler, origins, source, origin);
}

/**
 * Install service tokens for this isolate: requests to `serviceUrls` (the gateway's excluded) get
 * `source`'s token. The global dispatcher is wrapped once; later calls swap the source and origins.
 */
export function installServiceTokens(serviceUrls: Record<string, string>, source: ServiceTokenSource): void {
  const origins = new Set<string>();
  for (const [name, url] of Object.entries(serviceUrls)) {
    const o = originOf(url);
    if (o && name !== 'gateway') origins.add(o);
  }
  const gateway = originOf(serviceUrls.gateway);
  if (gateway) origins.delete(gateway);
  installed = { origins, source };
  if (!globalWrapped) {
    globalWrapped = true;
    const base = getGlobalDispatcher() ?? new Agent();
    setGlobalDispatcher(base.compose(dynamicInterceptor()));
  }
}

/** Stop adding tokens in this isolate (the service closed). */
export function uninstallServiceTokens(source: ServiceTokenSource): void {
  if (installed?.source === source) installed = null;
}

/** The installed token source of this isolate, or null. */
export function installedServiceTokens(): ServiceTokenSource | null {
  return installed?.source ?? null;
}

function dynamicInterceptor(origin: string | null = null): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const i = installed;
    return i ? dispatchWithToken(dispatch, opts, handler, i.origins, i.source, origin) : dispatch(opts, handler);
  };
}

/**
 * `pool` (whose origin is `origin`) with the service-token interceptor of this isolate (the one
 * installed when a request is made), for pools that do not go through the global dispatcher.
 */
export function withServiceTokens(pool: Dispatcher, origin: string): Dispatcher {
  return pool.compose(dynamicInterceptor(originOf(origin)));
}
