/**
 * An OAuth-protected streamable HTTP MCP server for tests (issue 17 item 3, MCP "Authorization"),
 * built only from the SDK's own server parts: `mcpAuthRouter` (authorization server metadata, dynamic
 * client registration, authorize, token, protected resource metadata) over the SDK's
 * `DemoInMemoryAuthProvider` (it approves at once, as a user who clicks "Allow" would, and checks
 * PKCE), and `requireBearerAuth` in front of the MCP endpoint (401 with `resource_metadata` in
 * `WWW-Authenticate`). One tool, `whoami`, answers which client the token was issued to.
 * Express comes with the SDK (its server side is built on it); it has no types here, hence the shim.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';

/** A running server. */
export interface OAuthMcpServer {
  /** The MCP endpoint (`http://127.0.0.1:<port>/mcp`). */
  url: string;
  /** Requests seen: `register`, `authorize`, `token`, `mcp ok` (a call that passed the bearer check). */
  seen: string[];
  /** Register a confidential client beforehand (as an admin would at the authorization server). */
  preregister(redirectUri: string): Promise<{ client_id: string; client_secret: string }>;
  close(): Promise<void>;
}

/** Start the server on an ephemeral loopback port. */
export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const seen: string[] = [];
  const provider = new DemoInMemoryAuthProvider();
  const app = express();
  app.use((req: { method: string; path: string }, _res: unknown, next: () => void) => {
    if (req.path === '/register') seen.push('register');
    if (req.path === '/authorize') seen.push('authorize');
    if (req.path === '/token') seen.push('token');
    next();
  });
  const http: Server = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, scopesSupported: ['mcp:tools'] }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post('/mcp', express.json(), (req: unknown, res: { statusCode: number; on(e: string, f: () => void): void }, next: (err?: unknown) => void) => {
    bearer(req, res, (err?: unknown) => {
      if (err) { next(err); return; }
      seen.push('mcp ok');
      const auth = (req as { auth?: { clientId: string } }).auth;
      const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Which OAuth client the token belongs to' }, async () => ({ content: [{ type: 'text', text: `client ${auth?.clientId ?? '?'}` }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => { void transport.close(); void server.close(); });
      void server.connect(transport).then(() => transport.handleRequest(req as never, res as never, (req as { body: unknown }).body));
    });
  });
  return {
    url: mcpUrl.href, seen,
    preregister: async (redirectUri) => {
      const c = await provider.clientsStore.registerClient({
        client_id: `pre-${Date.now()}`, client_secret: `pre-secret-${Math.random().toString(36).slice(2)}`, redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'client_secret_post', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
      });
      return { client_id: c.client_id, client_secret: c.client_secret! };
    },
    close: () => new Promise<void>((r) => { http.closeAllConnections(); http.close(() => r()); }),
  };
}
