/**
 * The workstation on the local network (issue 14 item 7): with a non-loopback `SVC_BIND_HOST` the
 * gateway serves HTTPS, its public URL is `SVC_PUBLIC_URL` or `https://<first non-internal
 * IPv4>:<gateway port>`, a generated certificate names these addresses, and an operator may give
 * their own (`SVC_TLS_CERT_FILE`, `SVC_TLS_KEY_FILE`). main/config is the one place that asks the OS.
 */
import { existsSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { ConfigError, str, type Env } from './env.js';

/** SVC_TLS_CERT_FILE and SVC_TLS_KEY_FILE (both or neither, both existing). @throws ConfigError naming the variable */
export function tlsFiles(env: Env): { tlsCertFile: string | null; tlsKeyFile: string | null } {
  const tlsCertFile = str(env, 'SVC_TLS_CERT_FILE') || null;
  const tlsKeyFile = str(env, 'SVC_TLS_KEY_FILE') || null;
  if (!tlsCertFile !== !tlsKeyFile) throw new ConfigError('SVC_TLS_CERT_FILE and SVC_TLS_KEY_FILE go together; set both (PEM certificate and key) or neither');
  for (const [name, file] of [['SVC_TLS_CERT_FILE', tlsCertFile], ['SVC_TLS_KEY_FILE', tlsKeyFile]] as const) {
    if (file && !existsSync(file)) throw new ConfigError(`${name} points at ${file}, which does not exist`);
  }
  return { tlsCertFile, tlsKeyFile };
}

/** True for a loopback bind address or name: `localhost`, `127.0.0.0/8`, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** True for a wildcard bind address (every interface). */
export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/**
 * The non-internal addresses of this machine: IPv4 first (in interface order), then IPv6 without
 * link-local ones (`fe80::/10` needs a zone id a URL cannot carry).
 */
export function lanAddresses(ifaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string[] {
  const all = Object.values(ifaces).flatMap((list) => list ?? []).filter((i) => !i.internal);
  const v4 = all.filter((i) => i.family === 'IPv4').map((i) => i.address);
  const v6 = all.filter((i) => i.family === 'IPv6' && !/^fe[89ab]/i.test(i.address)).map((i) => i.address);
  return [...new Set([...v4, ...v6])];
}

/**
 * The host of the derived public URL for a non-loopback bind: the bind address itself when it names
 * one interface, else the first non-internal IPv4 address, else `127.0.0.1` (no network).
 */
export function lanPublicHost(bindHost: string, addresses: readonly string[]): string {
  if (!isWildcardHost(bindHost)) return bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost;
  return addresses.find((a) => !a.includes(':')) ?? '127.0.0.1';
}

/** Where the services listen and are called, and the public URL. */
export interface NetworkPlan {
  /** The bind host is not loopback: the gateway faces the network over HTTPS. */
  lan: boolean;
  /** Where every service but the gateway binds (loopback off loopback, else the bind host). */
  internalHost: string;
  /** How services call each other. */
  serviceUrls: Record<ServiceName, string>;
  /** `SVC_PUBLIC_URL`, else derived (the LAN address over HTTPS off loopback). */
  publicUrl: string;
  /** This machine's LAN addresses (empty on loopback). */
  addresses: string[];
}

/**
 * The network plan of a stack bound to `host` with `ports` (issue 14 item 7): off loopback only the
 * gateway faces the network, over HTTPS, and the public URL names its LAN address; every other
 * service stays on loopback, reachable only through it. A wildcard bind is called on loopback.
 */
export function networkPlan(host: string, publicUrl: string | null, ports: Record<ServiceName, number>): NetworkPlan {
  const lan = !isLoopbackHost(host);
  const internalHost = lan ? '127.0.0.1' : host;
  const serviceUrls = {} as Record<ServiceName, string>;
  for (const name of SERVICE_NAMES) serviceUrls[name] = `http://${internalHost}:${ports[name]}`;
  const addresses = lan ? lanAddresses() : [];
  if (lan) serviceUrls.gateway = `https://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${ports.gateway}`;
  return { lan, internalHost, serviceUrls, addresses, publicUrl: publicUrl ?? (lan ? `https://${lanPublicHost(host, addresses)}:${ports.gateway}` : serviceUrls.gateway) };
}
