/**
 * The little of express the OAuth MCP test server uses (test/helpers/mcp-oauth-server.ts). Express
 * comes with `@modelcontextprotocol/sdk` (its server auth is built on it) without type definitions.
 */
declare module 'express' {
  interface ExpressApp {
    use(...handlers: unknown[]): void;
    post(path: string, ...handlers: unknown[]): void;
    listen(port: number, host: string, ready: () => void): import('node:http').Server;
  }
  interface Express {
    (): ExpressApp;
    json(): unknown;
  }
  const express: Express;
  export default express;
}
