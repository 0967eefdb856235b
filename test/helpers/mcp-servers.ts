/**
 * Real MCP servers for the MCP tests (issue 17 item 3), built with `@modelcontextprotocol/sdk`:
 * - `stdioServerCommand()`: the command and args of test/fixtures/mcp/stdio-server.ts (a child
 *   process speaking MCP over stdio; `die` ends it mid-call);
 * - `startHttpMcpServer()`: a streamable HTTP server (McpServer + StreamableHTTPServerTransport,
 *   stateless) on an ephemeral port of 127.0.0.1 at `/mcp`; it requires `authorization: Bearer
 *   <token>` when a token is given, records the authorization headers it saw, and its `die` tool
 *   cuts every connection mid-call.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** The stdio test server as `{command, args}` (this Node binary and the compiled script). */
export function stdioServerCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [fileURLToPath(new URL('../fixtures/mcp/stdio-server.js', import.meta.url))] };
}

/** A running streamable HTTP MCP server. */
export interface HttpMcpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Authorization headers received, in order. */
  authorizations: string[];
  /** Tool calls received, by tool name. */
  calls: string[];
  close(): Promise<void>;
}

function build(calls: string[], die: () => void): McpServer {
  const s = new McpServer({ name: 'test-http', version: '1.0.0' });
  s.registerTool('lookup', { description: 'Look a key up', inputSchema: { key: z.string() } }, async ({ key }) => {
    calls.push('lookup');
    return { content: [{ type: 'text', text: `value of ${key} is 42` }] };
  });
  s.registerTool('die', { description: 'Cut the connection mid-call' }, async () => {
    calls.push('die');
    setTimeout(die, 10);
    return await new Promise<never>(() => {});
  });
  return s;
}

/** Start the HTTP server. @param token the bearer token required (none: any request passes). */
export async function startHttpMcpServer(token?: string): Promise<HttpMcpServer> {
  const authorizations: string[] = [];
  const calls: string[] = [];
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (!req.url?.startsWith('/mcp')) { res.writeHead(404).end(); return; }
      authorizations.push(String(req.headers.authorization ?? ''));
      if (token && req.headers.authorization !== `Bearer ${token}`) { res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}'); return; }
      const server = build(calls, () => http.closeAllConnections());
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => { void transport.close(); void server.close(); });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => { if (!res.headersSent) res.writeHead(500).end(); });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`, authorizations, calls,
    close: () => new Promise<void>((r) => { http.closeAllConnections(); http.close(() => r()); }),
  };
}
