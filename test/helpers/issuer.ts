/**
 * A real bearer-token issuer for tests: an ES256 key pair, its JWKS served over HTTP on port 0,
 * and a `mint()` that signs tokens with any claims (including broken ones for negative tests).
 */
import { createServer, type Server } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload, type CryptoKey } from 'jose';

/** A running test issuer. */
export interface TestIssuer {
  /** The JWKS URL. */
  jwksUrl: string;
  /** Sign a JWT with this issuer's key; `header` overrides the protected header. */
  mint(claims: JWTPayload, header?: Record<string, unknown>): Promise<string>;
  publicJwk: JWK;
  close(): Promise<void>;
}

/** Start an issuer serving its JWKS at `/jwks.json`. */
export async function startIssuer(kid = 'test-key-1'): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [publicJwk] }));
    } else { res.writeHead(404); res.end(); }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
    publicJwk,
    mint: (claims, header) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, ...header }).sign(privateKey as CryptoKey),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
