/**
 * The `gateway-keys` plugin (issue 19 item 3): the local target `keys`, `/v1/admin/secrets*` (the
 * admission chain's admin guard ran before): `GET /v1/admin/secrets` lists key versions per kind,
 * `POST /v1/admin/secrets/{kind}/rotate` rotates one (domain/keys.ts; shapes in contracts/keys.ts).
 */
import fp from 'fastify-plugin';
import type { KeyAdmin } from '../../../shared/key-admin.js';
import { secretsRequest } from '../domain/keys.js';

/** Options of the `gateway-keys` plugin. */
export interface KeysPluginOptions {
  /** The supervisor's key channel, when one runs the stack. */
  keyAdmin?: KeyAdmin | undefined;
}

/** Register the `keys` local target. */
export const keysPlugin = fp<KeysPluginOptions>(async (app, opts) => {
  app.gatewayTargets.handle('keys', async (req, _reply, path) => secretsRequest(opts.keyAdmin, req.method, path));
}, { name: 'gateway-keys', fastify: '5.x', dependencies: ['gateway-proxy'], encapsulate: true });
