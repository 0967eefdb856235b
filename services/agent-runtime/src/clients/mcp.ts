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
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { checkOutboundUrl, type OutboundPolicy } from '../../../shared/http/outbound.js';
import type { McpCallAnswer, McpConnectSpec, McpConnector, McpSession, McpToolInfo } from '../domain/mcp/ports.js';

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

/**
 * The connector. `policy` + `dispatcher`: the outbound guard (`workstationEndpoints(cfg)` and
 * `createOutboundAgent`), used for every request of a streamable HTTP server.
 */
export function sdkConnector(policy: OutboundPolicy, dispatcher: Dispatcher): McpConnector {
  return async (spec: McpConnectSpec): Promise<McpSession> => {
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      listChanged: { tools: { autoRefresh: true, debounceMs: 50, onChanged: (err, tools) => { if (!err && tools) spec.onToolsChanged(tools.map(toInfo)); } } },
    });
    let transport;
    if (spec.transport === 'stdio') {
      transport = new StdioClientTransport({ command: spec.command!, args: spec.args ?? [], env: spec.env ?? {}, stderr: 'ignore' });
    } else {
      const url = (await checkOutboundUrl(spec.url!, policy)).url;
      transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: spec.headers ?? {} },
        fetch: (input, init) => undiciFetch(input as string, { ...(init as object), dispatcher }) as unknown as Promise<Response>,
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
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    return {
      async listTools(timeoutMs) {
        const out: McpToolInfo[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
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
