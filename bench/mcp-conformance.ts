/**
 * The runtime's MCP client as a conformance-suite client (issue 17 "Conformance and figures";
 * `@modelcontextprotocol/conformance`, client scenarios). The suite starts a scenario server and runs
 * `<command> <server url>` with MCP_CONFORMANCE_SCENARIO set; this script connects with the runtime's
 * own connector (clients/mcp.ts: SDK Client + StreamableHTTPClientTransport over the outbound guard),
 * lists the tools, calls each with arguments built from its input schema (numbers 1, 2, ...; strings
 * "x"), pings, and closes. Exit 0 when the session worked.
 *
 * Run (the suite needs Node >= 22: it imports `fs.globSync`):
 *   npx tsc -p tsconfig.json --outDir .build/mcp && \
 *   npx conformance client --command "node .build/mcp/bench/mcp-conformance.js" --scenario initialize
 *   npx conformance client --command "node .build/mcp/bench/mcp-conformance.js" --scenario tools_call
 */
import { createOutboundAgent } from '../services/shared/http/outbound-agent.js';
import { WorkstationEndpoints } from '../services/shared/http/outbound.js';
import { sdkConnector } from '../services/agent-runtime/src/clients/mcp.js';

/** Arguments for a tool from its JSON schema: numbers 1, 2, ...; booleans true; strings "x". */
function argsFor(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { type?: string }>;
  const out: Record<string, unknown> = {};
  let n = 1;
  for (const [k, p] of Object.entries(props)) out[k] = p.type === 'number' || p.type === 'integer' ? n++ : p.type === 'boolean' ? true : 'x';
  return out;
}

async function run(url: string): Promise<void> {
  const policy = { own: new WorkstationEndpoints([]) };
  const dispatcher = createOutboundAgent(policy);
  const session = await sdkConnector(policy, dispatcher)({ transport: 'streamable_http', url, headers: {}, onToolsChanged: () => {}, onClose: () => {} });
  try {
    const tools = await session.listTools(10_000);
    for (const t of tools) {
      const res = await session.callTool(t.name, argsFor(t.inputSchema), 10_000);
      console.log(`${process.env.MCP_CONFORMANCE_SCENARIO ?? '?'} ${t.name}: ${res.isError ? 'error' : 'ok'} ${res.text.slice(0, 200)}`);
    }
    await session.ping(5000).catch(() => {});
  } finally {
    await session.close();
    await dispatcher.close();
  }
}

const url = process.argv.at(-1);
if (!url?.startsWith('http')) { console.error('usage: mcp-conformance.js <server url>'); process.exit(2); }
run(url).then(() => process.exit(0), (err: unknown) => { console.error((err as Error).message); process.exit(1); });
