/**
 * MCP tool-call and tool-listing overhead through the runtime (issue 17 "Conformance and figures"):
 * the same streamable HTTP MCP server (test/helpers/mcp-servers.ts, built with the SDK) called
 * (a) directly with the SDK's `Client` + `StreamableHTTPClientTransport`, and (b) through the
 * runtime's path: the registry's `mcp_<8>_lookup` tool -> `McpConnections` (visibility check,
 * cached session) -> the runtime's connector (outbound-guarded undici dispatcher). p50 of each,
 * interleaved, and the ratio (target for a call: at most 1.2x).
 * Run: `node .build/<you>/bench/mcp-overhead.js`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createOutboundAgent } from '../services/shared/http/outbound-agent.js';
import { WorkstationEndpoints } from '../services/shared/http/outbound.js';
import { sdkConnector } from '../services/agent-runtime/src/clients/mcp.js';
import { McpCatalog } from '../services/agent-runtime/src/domain/mcp/catalog.js';
import { McpConnections } from '../services/agent-runtime/src/domain/mcp/connections.js';
import { mcpToolName } from '../services/agent-runtime/src/domain/mcp/naming.js';
import type { McpServerRow, McpServerStore } from '../services/agent-runtime/src/domain/mcp/ports.js';
import { ToolRegistry } from '../services/agent-runtime/src/domain/tool-registry.js';
import type { ToolContext } from '../services/agent-runtime/src/contracts.js';
import { startHttpMcpServer } from '../test/helpers/mcp-servers.js';
import { pct, runIfEntry } from './support/measure.js';
import type { Figure } from './audit.js';

const N = 300;
const WARMUP = 30;

/** A one-row store (the bench measures the call path, not SQLite). */
function oneRowStore(row: McpServerRow): McpServerStore {
  return {
    get: (_t, id) => (id === row.id ? row : undefined), list: () => [row], listAll: () => [row],
    insert: () => {}, update: () => {}, delete: () => false, setOptOut: () => {}, optOuts: () => new Set(),
  };
}

/** Run the bench. @returns the figures (call p50 both ways and the ratio; listing ratio). */
export async function main(): Promise<Figure[]> {
  const server = await startHttpMcpServer();
  const now = new Date().toISOString();
  const row: McpServerRow = {
    id: '01BENCHMCPSERVER0000000001', tenant_id: 'bench', owner_id: '', name: 'bench', transport: 'streamable_http', command: null,
    args_json: '[]', env_json: '{}', url: server.url, headers_json: '{}', trusted: 0, oauth_client_json: null, created_by: null, created_at: now, updated_at: now,
  };
  const store = oneRowStore(row);
  const policy = { own: new WorkstationEndpoints([]) };
  const dispatcher = createOutboundAgent(policy);
  const registry = new ToolRegistry();
  const catalog = new McpCatalog({ store, policy });
  const conns = new McpConnections({ store, catalog, registry, connect: sdkConnector(policy, dispatcher), resolveSecret: async () => null, log: { warn: () => {}, info: () => {} } });
  await conns.refresh(row);
  const tool = registry.get(mcpToolName(row.id, 'lookup'))!;
  const ctx: ToolContext = {
    tenantId: 'bench', userId: 'u1', agentId: 'default', sessionId: 's', turnId: null, callId: 'c', headers: {}, serviceUrls: {},
    signal: new AbortController().signal, callService: async () => ({ ok: true, status: 200, body: null }),
  };
  const client = new Client({ name: 'bench-direct', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));

  const direct: number[] = []; const runtime: number[] = []; const listDirect: number[] = []; const listRuntime: number[] = [];
  for (let i = 0; i < WARMUP + N; i++) {
    let t = performance.now();
    await client.callTool({ name: 'lookup', arguments: { key: `k${i}` } });
    const d = performance.now() - t;
    t = performance.now();
    const out = await tool.execute({ key: `k${i}` }, { ...ctx, signal: new AbortController().signal });
    const r = performance.now() - t;
    if (typeof out !== 'string') throw new Error(`runtime call failed: ${JSON.stringify(out)}`);
    if (i >= WARMUP) { direct.push(d); runtime.push(r); }
    if (i % 5 === 0) {
      t = performance.now(); await client.listTools(); const ld = performance.now() - t;
      t = performance.now(); await conns.refresh(row); const lr = performance.now() - t;
      if (i >= WARMUP) { listDirect.push(ld); listRuntime.push(lr); }
    }
  }
  await client.close();
  await conns.closeAll();
  await dispatcher.close();
  await server.close();
  const p50d = pct(direct, 50); const p50r = pct(runtime, 50);
  const l50d = pct(listDirect, 50); const l50r = pct(listRuntime, 50);
  const ratio = p50r / p50d;
  console.log(`mcp tool call p50: direct ${p50d.toFixed(2)} ms, through the runtime ${p50r.toFixed(2)} ms, ratio ${ratio.toFixed(2)}x (target <= 1.2x)`);
  console.log(`mcp tool listing p50: direct ${l50d.toFixed(2)} ms, through the runtime ${l50r.toFixed(2)} ms, ratio ${(l50r / l50d).toFixed(2)}x`);
  return [
    { name: 'mcp call p50 direct', value: p50d, unit: 'ms' },
    { name: 'mcp call p50 via runtime', value: p50r, unit: 'ms' },
    { name: 'mcp call overhead ratio (p50)', value: ratio, unit: 'x', target: '<= 1.2', pass: ratio <= 1.2 },
    { name: 'mcp listing overhead ratio (p50)', value: l50r / l50d, unit: 'x' },
  ];
}

await runIfEntry(import.meta.url, main);
