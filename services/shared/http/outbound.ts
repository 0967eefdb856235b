/**
 * Which addresses an outbound fetch of a SUPPLIED URL may reach (issue 11 item 8, "No URL of the
 * workstation's own").
 *
 * An admin registered an inference provider whose base URL was the gateway itself (also spelt
 * `127.1`, `2130706433`, `0x7f000001`, `[::ffff:127.0.0.1]`, `0.0.0.0`) with a user's token as the
 * API key: the router then called the gateway as that user. Every URL a user or an admin supplies is
 * therefore resolved first and refused (`url_not_allowed`) when ANY address it resolves to is
 *
 * - unspecified (`0.0.0.0/8`, `::`): the kernel connects these to the machine itself;
 * - link-local (`169.254.0.0/16`, `fe80::/10`): cloud metadata endpoints live there;
 * - the workstation's own (loopback `127.0.0.0/8`, `::1`, or an address of one of its interfaces)
 *   AND the port is one the workstation serves (the gateway, every service's HTTP port, their gRPC
 *   ports = HTTP + 1000, spec "Services" rule 5).
 *
 * IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is judged as the IPv4 address it carries. Other loopback
 * ports stay allowed: local model servers (Ollama, vLLM, llama.cpp) live there. Only `http:` and
 * `https:` are fetched.
 *
 * This module decides; `outbound-agent.ts` enforces at connect time (the address connected to is the
 * address checked, so DNS rebinding between check and connect cannot bypass it). EVERY fetch of a
 * supplied URL goes through that agent: inference providers (registration probe and calls), the
 * price list (PRICING_MODELS_URL), and, when they arrive, MCP servers, connectors and OAuth/OIDC
 * discovery and token endpoints. Calls between the workstation's own services use the URLs of the
 * config (`serviceUrls`) and do not go through it.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';
import { DomainError } from '../kit/domain-error.js';
import type { CommonServiceConfig } from '../config.js';
import { GRPC_SERVICES, SERVICE_NAMES } from '../services.js';

/** The error code of a refused outbound URL (400 in every service table that lists it). */
export const URL_NOT_ALLOWED = 'url_not_allowed';

/**
 * What the workstation serves (a port of the checker; `workstationEndpoints` builds it from the
 * config). Loopback addresses are always the workstation's own and need not be listed.
 */
export interface OwnEndpoints {
  /** True when `port` is served by the workstation (gateway, a service's HTTP or gRPC port). */
  servesPort(port: number): boolean;
  /** Canonical addresses of this machine's interfaces (beyond loopback), read when asked. */
  interfaceAddresses(): Iterable<string>;
  /**
   * Egress control (issue 19 item 6): when set and not `off`, supplied URLs are fetched through the
   * forward proxy (`outbound-agent.ts`), or fail closed when `enforce` has no proxy.
   */
  readonly egress?: EgressRoute;
}

/** Where a service's outbound fetches go under egress control (issue 19 item 6). */
export interface EgressRoute {
  policy: 'off' | 'observe' | 'enforce';
  /** Squid's URL, or null when it is not running. */
  proxyUrl: string | null;
  /** Why the proxy is not running. */
  reason: string | null;
  /** The calling service, sent to the proxy as `X-Egress-Service` (the audit row's `service`). */
  service: string;
}

/** Resolves a host name to every address (like `dns.lookup(host, {all: true})`). */
export type Resolver = (host: string, family?: 0 | 4 | 6) => Promise<LookupAddress[]>;

/** How outbound URLs are judged. */
export interface OutboundPolicy {
  own: OwnEndpoints;
  /** Name resolution (default: the OS resolver, `dns.lookup` with `all: true`). */
  resolve?: Resolver;
}

/** A URL that passed: the parsed URL, its effective port and the addresses it may be reached at. */
export interface CheckedUrl {
  url: URL;
  /** The explicit port, else 80 (http) or 443 (https). */
  port: number;
  /** Every address the host resolved to, all allowed, in resolver order. */
  addresses: LookupAddress[];
}

/**
 * A supplied URL the workstation will not fetch. A `DomainError` with code `url_not_allowed`, so a
 * service that lists the code in its error table answers 400 with it; `reason` says why in words an
 * admin can act on (no secrets, no paths).
 */
export class UrlNotAllowedError extends DomainError<typeof URL_NOT_ALLOWED> {
  constructor(message: string, readonly reason: 'scheme' | 'unparseable' | 'unspecified' | 'link_local' | 'own_endpoint') {
    super(URL_NOT_ALLOWED, message, { extra: { reason } });
  }
}

/** True when `err` is a `UrlNotAllowedError` (also across module copies, by its code). */
export function isUrlNotAllowed(err: unknown): err is UrlNotAllowedError {
  return err instanceof UrlNotAllowedError || (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === URL_NOT_ALLOWED);
}

/** Addresses refused whatever the port: unspecified and link-local. */
const NEVER = new BlockList();
NEVER.addSubnet('0.0.0.0', 8, 'ipv4');
NEVER.addSubnet('169.254.0.0', 16, 'ipv4');
NEVER.addAddress('::', 'ipv6');
NEVER.addSubnet('fe80::', 10, 'ipv6');

/** Loopback: always the workstation's own. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * The canonical text of an IP address, with an IPv4-mapped IPv6 address (`::ffff:7f00:1`,
 * `::ffff:127.0.0.1`) turned into the IPv4 address it carries. @returns null for a non-address.
 * @example canonicalAddress('::ffff:127.0.0.1') // '127.0.0.1'
 */
export function canonicalAddress(address: string): string | null {
  const inner = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(inner);
  if (family === 4) return inner;
  if (family !== 6) return null;
  // The zone (`fe80::1%eth0`) names an interface, not another address; WHATWG URL serialises IPv6
  // canonically (RFC 5952: lower case, longest zero run compressed, no dotted tail).
  let text: string;
  try { text = new URL(`http://[${inner.split('%')[0]!}]/`).hostname.slice(1, -1); } catch { return null; }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(text);
  if (!mapped) return text;
  const hi = parseInt(mapped[1]!, 16); const lo = parseInt(mapped[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * Why `address`:`port` may not be reached, or null when it may. `address` is an IP literal (any
 * spelling `canonicalAddress` accepts). Pure over `own`.
 * @example refusalOf('169.254.169.254', 80, own) // UrlNotAllowedError (link_local)
 */
export function refusalOf(address: string, port: number, own: OwnEndpoints): UrlNotAllowedError | null {
  const a = canonicalAddress(address);
  if (a === null) return new UrlNotAllowedError(`"${address}" is not an IP address`, 'unparseable');
  const type = isIPv4(a) ? 'ipv4' : 'ipv6';
  if (NEVER.check(a, type)) {
    return /^(0\.|::$)/.test(a)
      ? new UrlNotAllowedError(`the URL reaches the unspecified address ${a}, which is this workstation; outbound URLs may not`, 'unspecified')
      : new UrlNotAllowedError(`the URL reaches the link-local address ${a}; outbound URLs may not (cloud metadata and local links live there)`, 'link_local');
  }
  if (own.servesPort(port) && (LOOPBACK.check(a, type) || isInterfaceAddress(a, own))) {
    return new UrlNotAllowedError(`the URL reaches port ${port} of this workstation (${a}), where its own gateway or services listen; outbound URLs may not`, 'own_endpoint');
  }
  return null;
}

function isInterfaceAddress(a: string, own: OwnEndpoints): boolean {
  for (const i of own.interfaceAddresses()) if (canonicalAddress(i) === a) return true;
  return false;
}

/** The OS resolver: every address, in the order getaddrinfo gives. */
export const systemResolver: Resolver = (host, family = 0) => new Promise((resolve, reject) => {
  dnsLookup(host, { all: true, family, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
});

/** The port a URL connects to: its explicit port, else the scheme's default. */
export function effectivePort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Resolve `host` and check every address it resolves to against `port`.
 * @returns the addresses (all allowed). @throws UrlNotAllowedError when any is refused; the
 *   resolver's own error (e.g. `ENOTFOUND`) when the name does not resolve.
 */
export async function resolveAllowed(host: string, port: number, policy: OutboundPolicy, family: 0 | 4 | 6 = 0): Promise<LookupAddress[]> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const addresses = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await (policy.resolve ?? systemResolver)(bare, family);
  for (const a of addresses) {
    const refused = refusalOf(a.address, port, policy.own);
    if (refused) throw refused;
  }
  return addresses;
}

/**
 * Check a supplied URL before fetching it: parse it as WHATWG URL does (which already reads `127.1`,
 * `2130706433`, `0x7f000001` and `0177.0.0.1` as 127.0.0.1), allow only http and https, resolve the
 * host and judge every address (see the module comment).
 * @example await checkOutboundUrl('http://2130706433:8080/v1', policy) // throws own_endpoint
 * @throws UrlNotAllowedError (`url_not_allowed`); the resolver's error when the host does not resolve.
 */
export async function checkOutboundUrl(url: string | URL, policy: OutboundPolicy): Promise<CheckedUrl> {
  let u: URL;
  try { u = new URL(String(url)); } catch { throw new UrlNotAllowedError('the URL cannot be parsed', 'unparseable'); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UrlNotAllowedError(`only http and https URLs are fetched, not ${u.protocol.slice(0, -1)}`, 'scheme');
  const port = effectivePort(u);
  return { url: u, port, addresses: await resolveAllowed(u.hostname, port, policy) };
}

/** `OwnEndpoints` of a running workstation, from its config; ports can be added once known. */
export class WorkstationEndpoints implements OwnEndpoints {
  private readonly ports = new Set<number>();
  /** Egress route of the service (issue 19 item 6), set by `workstationEndpoints`. */
  egress?: EgressRoute;

  /** @param ports initial own ports (0 is ignored: an ephemeral port is added once bound). */
  constructor(ports: Iterable<number>, private readonly interfaces: () => Iterable<string> = interfaceAddressesOfHost) {
    for (const p of ports) this.addPort(p);
  }

  /** Add a port the workstation serves (e.g. the one the OS gave a service started on port 0). */
  addPort(port: number): void { if (Number.isInteger(port) && port > 0) this.ports.add(port); }

  servesPort(port: number): boolean { return this.ports.has(port); }

  interfaceAddresses(): Iterable<string> { return this.interfaces(); }
}

/** Every address of this machine's network interfaces (read each time: interfaces come and go). */
export function interfaceAddressesOfHost(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/**
 * The workstation's own endpoints as a service's config knows them: the port of every service URL
 * and of the public URL, the gRPC port (HTTP + 1000) of each service that has one, and the service's
 * own port; plus the interface addresses of the host.
 */
export function workstationEndpoints(cfg: Pick<CommonServiceConfig, 'serviceUrls' | 'publicUrl' | 'port'> & Partial<Pick<CommonServiceConfig, 'egress' | 'service'>>): WorkstationEndpoints {
  const ports: number[] = [cfg.port];
  const portOf = (s: string): number | null => { try { return effectivePort(new URL(s)); } catch { return null; } };
  for (const name of SERVICE_NAMES) {
    const p = portOf(cfg.serviceUrls[name]);
    if (p === null) continue;
    ports.push(p);
    if (GRPC_SERVICES.has(name)) ports.push(p + 1000);
  }
  const pub = portOf(cfg.publicUrl);
  if (pub !== null) ports.push(pub);
  const eg = cfg.egress;
  // Issue 19 item 6: the proxy's own port is the workstation's too (a supplied URL may not name it).
  const proxyPort = eg?.proxyUrl ? portOf(eg.proxyUrl) : null;
  if (proxyPort !== null) ports.push(proxyPort);
  const own = new WorkstationEndpoints(ports);
  if (eg && eg.policy !== 'off') own.egress = { policy: eg.policy, proxyUrl: eg.proxyUrl, reason: eg.reason, service: cfg.service ?? 'unknown' };
  return own;
}
