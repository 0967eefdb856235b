/**
 * An instance's own base URL as its peers reach it (issue 21: scaled-out instances forward calls
 * to the instance holding a sandbox session or a paused AG-UI run): the configured one
 * (SANDBOX_INSTANCE_URL, SVC_GATEWAY_INSTANCE_URL) when set, else the listening address, with the
 * machine's host name in place of a wildcard bind address (0.0.0.0, ::).
 */
import type { Server } from 'node:http';
import { hostname } from 'node:os';

/**
 * @param configured the operator's URL, or null. @param server the listening server.
 * @param bindHost the address it was bound to. @param tls whether it answers https.
 * @returns the URL without a trailing slash, or null before the server listens.
 */
export function selfUrlOf(configured: string | null | undefined, server: Pick<Server, 'address'>, bindHost: string, tls = false): string | null {
  if (configured) return configured;
  const addr = server.address();
  if (!addr || typeof addr === 'string') return null;
  const host = bindHost === '0.0.0.0' || bindHost === '::' ? hostname() : bindHost;
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}
