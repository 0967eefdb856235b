/**
 * HTTPS on the LAN (issue 14 item 7): browsers give WebCrypto only to secure contexts, so a gateway
 * bound off loopback (`cfg.tls` set by main/config) serves HTTPS: fastify builds a node:https
 * server (`httpsServerOptions`), and setup gives it the certificate (`applyTls`: the operator's
 * files, or the self-signed pair kept under `<dataDir>/tls/`, services/shared/identity/tls-cert.ts)
 * before it listens. A loopback gateway stays plain HTTP, as before, and clears the served
 * fingerprint so the enrollment URL carries none.
 */
import type { Server as HttpsServer } from 'node:https';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../../shared/config.js';
import { loadOrCreateTlsCert, recordServedFingerprint, type TlsMaterial } from '../../../shared/identity/tls-cert.js';

/** Oldest TLS version served. */
const MIN_VERSION = 'TLSv1.2';

/**
 * fastify server options for `cfg`: an HTTPS server (certificate applied later by `applyTls`) when
 * `cfg.tls` is set, else none (plain HTTP).
 */
export function httpsServerOptions(cfg: GatewayConfig): Partial<FastifyServerOptions> {
  return cfg.tls ? ({ https: { minVersion: MIN_VERSION } } as Partial<FastifyServerOptions>) : {};
}

/**
 * Give the HTTPS server its certificate and record the served fingerprint (the auth service puts it
 * in enrollment URLs); on plain HTTP, remove the record. A kept certificate must still cover the
 * public URL's host.
 * @returns what is served, or null on plain HTTP.
 * @throws Error when the operator's files cannot be read or do not match (the gateway does not start).
 */
export async function applyTls(app: FastifyInstance, cfg: GatewayConfig, logger: Logger): Promise<TlsMaterial | null> {
  if (!cfg.tls) {
    recordServedFingerprint(cfg.dataDir, null);
    return null;
  }
  const publicHost = new URL(cfg.publicUrl).hostname.replace(/^\[|\]$/g, '');
  const material = await loadOrCreateTlsCert(cfg.dataDir, {
    certFile: cfg.tls.certFile, keyFile: cfg.tls.keyFile, hosts: cfg.tls.hosts, required: [publicHost],
  });
  (app.server as HttpsServer).setSecureContext({ cert: material.cert, key: material.key, minVersion: MIN_VERSION });
  recordServedFingerprint(cfg.dataDir, material.fingerprint);
  logger.info({ source: material.source, fingerprint: material.fingerprint, public_url: cfg.publicUrl }, 'serving HTTPS on the LAN');
  return material;
}
