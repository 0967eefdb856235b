/**
 * The MCP connector (issue 17 item 3) with `@modelcontextprotocol/sdk`: `Client` over
 * `StdioClientTransport` (a child process with the minimal environment the domain hands over; its
 * stderr is dropped, closed with the SDK's stdin-close / SIGTERM / SIGKILL sequence) or
 * `StreamableHTTPClientTransport` whose every request goes through the outbound guard's dispatcher
 * (services/shared/http/outbound-agent.ts), so a URL that resolves to the workstation's own service
 * ports or link-local addresses fails with `url_not_allowed` at connect time too.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { checkOutboundUrl, type OutboundPolicy } from '../../../shared/http/outbound.js';
import type { McpCallAnswer, McpConnectSpec, McpConnector, McpSession, McpToolInfo } from '../domain/mcp/ports.js';
import { McpAuthorizationRequired, type McpOAuthVault } from '../domain/mcp/oauth.js';
import { VaultOAuthProvider } from './mcp-oauth.js';

/** How the runtime names itself to MCP servers. */
const CLIENT_INFO = { name: 'svc-agent-runtime', version: '1.0.0' };

/** Connect timeout (initialize handshake), ms. */
const CONNECT_TIMEOUT_MS = 15_000;

function toInfo(t: { name: string; description?: string; inputSchema: unknown; annotations?: unknown }): McpToolInfo {
  return {
    name: t.name, ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
    ...(t.annotations ? { annotations: t.annotations as Record<string, unknown> } : {}),
  };
}

/** The text of a `tools/call` answer: text blocks joined, other blocks as JSON; `structuredContent` when no content. */
function flatten(res: { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown }): McpCallAnswer {
  const blocks = Array.isArray(res.content) ? res.content as Array<{ type: string; text?: string }> : [];
  const parts = blocks.map((b) => (b.type === 'text' ? b.text ?? '' : JSON.stringify(b)));
  let text = parts.join('\n');
  if (!text && res.structuredContent !== undefined) text = JSON.stringify(res.structuredContent);
  if (!text && res.toolResult !== undefined) text = JSON.stringify(res.toolResult);
  return { text, isError: res.isError === true };
}

/** Where MCP OAuth records live and the callback URL registered with authorization servers. */
export interface McpOAuthWiring { vault: McpOAuthVault; redirectUrl: string }

/** The fetch of every request to a streamable HTTP server and its authorization server: undici over the outbound guard. */
export function guardedFetch(dispatcher: Dispatcher): typeof fetch {
  return ((input: string | URL, init?: RequestInit) => undiciFetch(input as string, { ...(init as object), dispatcher }) as unknown as Promise<Response>) as typeof fetch;
}

/** An `UnauthorizedError` of the SDK as the domain's `McpAuthorizationRequired`; other errors unchanged. */
function authorizationError(err: unknown, provider: VaultOAuthProvider | undefined): unknown {
  if (!(err instanceof UnauthorizedError)) return err;
  return new McpAuthorizationRequired(provider?.authorizationUrl?.href ?? null);
}

/**
 * The connector. `policy` + `dispatcher`: the outbound guard (`workstationEndpoints(cfg)` and
 * `createOutboundAgent`), used for every request of a streamable HTTP server and of its
 * authorization server. `oauth`: the MCP authorization wiring (absent: no OAuth client).
 * @throws McpAuthorizationRequired when the server needs the user's authorization.
 */
export function sdkConnector(policy: OutboundPolicy, dispatcher: Dispatcher, oauth?: McpOAuthWiring): McpConnector {
  return async (spec: McpConnectSpec): Promise<McpSession> => {
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      listChanged: { tools: { autoRefresh: true, debounceMs: 50, onChanged: (err, tools) => { if (!err && tools) spec.onToolsChanged(tools.map(toInfo)); } } },
    });
    let transport;
    let provider: VaultOAuthProvider | undefined;
    if (spec.transport === 'stdio') {
      transport = new StdioClientTransport({ command: spec.command!, args: spec.args ?? [], env: spec.env ?? {}, stderr: 'ignore' });
    } else {
      const url = (await checkOutboundUrl(spec.url!, policy)).url;
      if (oauth && spec.oauth) provider = new VaultOAuthProvider(oauth.vault, spec.oauth.key, oauth.redirectUrl, spec.oauth.preregistered);
      transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: spec.headers ?? {} },
        fetch: guardedFetch(dispatcher),
        ...(provider ? { authProvider: provider } : {}),
      });
    }
    let closed = false;
    // A broken response stream (the server died mid-call) is reported through onerror while the
    // request stays pending until its timeout: fail the calls in flight at once instead.
    const inFlight = new Set<(err: Error) => void>();
    client.onerror = (err) => { for (const fail of inFlight) fail(err); };
    client.onclose = () => {
      for (const fail of inFlight) fail(new Error('the MCP server closed the connection'));
      if (!closed) { closed = true; spec.onClose(); }
    };
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    } catch (err) {
      await client.close().catch(() => {});
      throw authorizationError(err, provider);
    }
    return {
      async listTools(timeoutMs) {
        const out: McpToolInfo[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs }).catch((err: unknown) => { throw authorizationError(err, provider); });
          out.push(...page.tools.map(toInfo));
          cursor = page.nextCursor;
        } while (cursor);
        return out;
      },
      async callTool(name, args, timeoutMs, signal) {
        let fail: (err: Error) => void = () => {};
        const broken = new Promise<never>((_, reject) => { fail = reject; });
        inFlight.add(fail);
        try {
          const res = await Promise.race([client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs, ...(signal ? { signal } : {}) }), broken]);
          return flatten(res as Parameters<typeof flatten>[0]);
        } catch (err) {
          throw authorizationError(err, provider);
        } finally { inFlight.delete(fail); }
      },
      async ping(timeoutMs) {
        try {
          await client.ping({ timeout: timeoutMs });
          return 'ping';
        } catch (err) {
          if (!(err instanceof McpError && err.code === ErrorCode.MethodNotFound)) throw err;
          await client.listTools({}, { timeout: timeoutMs });
          return 'list_tools';
        }
      },
      async close() {
        closed = true;
        await client.close().catch(() => {});
      },
    };
  };
}
