/**
 * Issue 15 item 2: every fetch openid-client makes for the broker goes through the outbound guard
 * (its `customFetch` uses the guarded undici agent), not only the check when an issuer is saved. A
 * discovery server on a port the workstation "serves" is refused at connect time with
 * `url_not_allowed`; the same server on a port that is not the workstation's is fetched.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutboundAgent } from '../../../services/shared/http/outbound-agent.js';
import { WorkstationEndpoints } from '../../../services/shared/http/outbound.js';
import { OpenIdUpstreamClient } from '../../../services/auth/src/clients/upstream-oidc.js';
import { DomainError } from '../../../services/shared/kit/domain-error.js';

let server: Server;
let issuer: string;
let hits = 0;

before(async () => {
  server = createServer((req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const clientFor = (ownPorts: number[]) => {
  const own = new WorkstationEndpoints(ownPorts, () => []);
  return new OpenIdUpstreamClient({ dispatcher: createOutboundAgent({ own }), policy: { own }, timeoutSeconds: 5 });
};

test('discovery to a port of the workstation is refused at connect time', async () => {
  const port = Number(new URL(issuer).port);
  const hitsBefore = hits;
  await assert.rejects(clientFor([port]).metadata({ issuer, client_id: 'c', client_secret: 's' }),
    (err: unknown) => err instanceof DomainError && err.code === 'url_not_allowed');
  assert.equal(hits, hitsBefore, 'not a byte reached the server');
  await assert.rejects(clientFor([port]).checkIssuer(issuer), (err: unknown) => err instanceof DomainError && err.code === 'url_not_allowed');
});

test('discovery elsewhere on loopback is fetched through the same agent', async () => {
  const m = await clientFor([1]).metadata({ issuer, client_id: 'c', client_secret: 's' });
  assert.equal(m.issuer, issuer);
  assert.equal(m.token_endpoint, `${issuer}/token`);
  assert.ok(hits >= 1);
});
