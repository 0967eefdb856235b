/**
 * Mounting the embedded IdP on the auth service (issue 15 item 1): every request under the realm
 * prefix (`/idp/realms/svc`, `IDP_PREFIX`) that no more specific route answers (the interaction pages
 * and the broker routes are ordinary routes beside this one) is handed, raw, to `provider.callback()`,
 * the way oidc-provider documents mounting: `req.url` without the prefix and `req.originalUrl` with
 * the issuer's path, so every URL it builds keeps the prefix.
 *
 * The routes are public (`config: {public: true}`): the IdP authenticates its own clients. Bodies are
 * left unread for oidc-provider's own parser (its limit is 56 KiB, below the service's 64 KiB).
 * Host and scheme: the provider runs with `proxy = true` and this mount overwrites
 * `X-Forwarded-Host`/`X-Forwarded-Proto` with the public URL's, so discovery and redirects name the
 * public URLs whether a request came through the gateway or straight to the auth port. The client
 * address for throttling comes from the gateway's signed hop stamp, else the TCP peer (`idpClientIp`).
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import type Provider from 'oidc-provider';
import { CLIENT_HOP_HEADER, clientAddress, type ClientHopVerifier } from '../../../shared/identity/client-hop.js';

/** Options of `idpMount`. */
export interface IdpMountOptions {
  provider: Provider;
  /** Path the auth service serves the realm at (`/idp/realms/svc`). */
  localPrefix: string;
  /** The issuer's path (the same unless the public URL has a path). */
  issuerPath: string;
  /** The public URL (`{scheme}://{host}`). */
  publicUrl: string;
  hop: ClientHopVerifier;
}

const clientIps = new WeakMap<IncomingMessage, string>();

/** The client address of a request the mount handed to the provider (hop stamp, else TCP peer); '' if unknown. */
export function idpClientIp(req: IncomingMessage): string {
  return clientIps.get(req) ?? req.socket.remoteAddress ?? '';
}

/** Register the catch-all routes of the realm. */
export const idpMount: FastifyPluginAsync<IdpMountOptions> = async (app, opts) => {
  const { provider, localPrefix, issuerPath } = opts;
  const pub = new URL(opts.publicUrl);
  const callback = provider.callback();
  // oidc-provider reads the body itself.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => { done(null, undefined); });
  const handle = async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply): Promise<void> => {
    const raw = req.raw as IncomingMessage & { originalUrl?: string };
    clientIps.set(raw, clientAddress(req.headers[CLIENT_HOP_HEADER], req.socket.remoteAddress, opts.hop).ip);
    const url = raw.url ?? '/';
    const rest = url.slice(localPrefix.length);
    const local = rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
    raw.originalUrl = `${issuerPath}${local}`;
    raw.url = local;
    raw.headers['x-forwarded-host'] = pub.host;
    raw.headers['x-forwarded-proto'] = pub.protocol.slice(0, -1);
    delete raw.headers.forwarded;
    reply.hijack();
    callback(raw, reply.raw);
  };
  app.all(localPrefix, { config: { public: true } }, handle);
  app.all(`${localPrefix}/*`, { config: { public: true } }, handle);
};
