/**
 * A small, real token issuer for service tokens in tests (issue 15 item 4): an HTTP server on an
 * ephemeral loopback port with a Keycloak-style realm `{url}/realms/svc`:
 *
 * - `POST /realms/svc/protocol/openid-connect/token`: `grant_type=client_credentials` with HTTP Basic
 *   client authentication -> `{access_token, token_type: "Bearer", expires_in}` (an ES256 JWT with
 *   `iss`, `aud`, `client_id`, `sub`, `exp`), 401 `invalid_client` for a wrong secret;
 * - `GET /realms/svc/protocol/openid-connect/certs`: the JWKS.
 *
 * `mint(claims)` signs any token with the realm key (wrong audience, unknown client, ...), and
 * `foreign(claims)` with a key the JWKS does not hold. Used by unit tests of the token source and
 * verifier, and by tests that start one service alone with `internalAuth` pointing here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import type { InternalAuthConfig } from '../../services/shared/config.js';

/** A running test issuer. */
export interface ServiceIssuer {
  url: string;
  issuer: string;
  tokenUrl: string;
  jwksUrl: string;
  /** Token requests answered 200. */
  issued: number;
  /** Sign `claims` (merged over iss/aud/exp defaults) with the realm key. */
  mint(claims: JWTPayload, ttlSeconds?: number): Promise<string>;
  /** Sign `claims` with a key the realm's JWKS does not hold. */
  foreign(claims: JWTPayload): Promise<string>;
  /** An `internalAuth` slice for `clientId` against this issuer. */
  config(clientId: string, allowedClients?: string[] | null): InternalAuthConfig;
  close(): Promise<void>;
}

/** Options of `startServiceIssuer`. */
export interface ServiceIssuerOptions {
  /** Client id -> secret. */
  clients: Record<string, string>;
  audience?: string;
  /** Token lifetime, seconds (default 600). */
  ttlSeconds?: number;
}

/** Start a test issuer. */
export async function startServiceIssuer(opts: ServiceIssuerOptions): Promise<ServiceIssuer> {
  const audience = opts.audience ?? 'svc-internal';
  const ttl = opts.ttlSeconds ?? 600;
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const other = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  let base = '';
  const realm = (): string => `${base}/realms/svc`;
  const sign = (claims: JWTPayload, key: typeof privateKey, kid: string, life = ttl): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: realm(), aud: audience, iat: now, exp: now + life, ...claims }).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(key);
  };
  const state = { issued: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const path = (req.url ?? '').split('?')[0];
        if (req.method === 'GET' && path === '/realms/svc/protocol/openid-connect/certs') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
          return;
        }
        if (req.method === 'POST' && path === '/realms/svc/protocol/openid-connect/token') {
          const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
          const m = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
          const [id, secret] = m ? Buffer.from(m[1]!, 'base64').toString('utf8').split(':').map((s) => decodeURIComponent(s.replace(/\+/g, ' '))) : [];
          if (!id || opts.clients[id] === undefined || opts.clients[id] !== secret) {
            res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client' }));
            return;
          }
          if (form.get('grant_type') !== 'client_credentials') {
            res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unsupported_grant_type' }));
            return;
          }
          state.issued++;
          const token = await sign({ client_id: id, sub: id }, privateKey, 'k1');
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: ttl }));
          return;
        }
        res.writeHead(404).end();
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    issuer: realm(),
    tokenUrl: `${realm()}/protocol/openid-connect/token`,
    jwksUrl: `${realm()}/protocol/openid-connect/certs`,
    get issued() { return state.issued; },
    mint: (claims, life) => sign(claims, privateKey, 'k1', life),
    foreign: (claims) => sign(claims, other.privateKey, 'k1'),
    config: (clientId, allowedClients = null) => ({
      clientId, clientSecret: opts.clients[clientId] ?? '', tokenUrl: `${realm()}/protocol/openid-connect/token`, issuer: realm(),
      jwksUrl: `${realm()}/protocol/openid-connect/certs`, audience, allowedClients, introspectionUrl: null,
    }),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
