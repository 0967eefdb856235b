/**
 * The runtime's MCP client as a conformance-suite client (issue 17 "Conformance and figures";
 * `@modelcontextprotocol/conformance`, client scenarios). The suite starts a scenario server and runs
 * `<command> <server url>` with MCP_CONFORMANCE_SCENARIO set; this script connects with the runtime's
 * own connector (clients/mcp.ts: SDK Client + StreamableHTTPClientTransport over the outbound guard),
 * lists the tools, calls each with arguments built from its input schema (numbers 1, 2, ...; strings
 * "x"), pings, and closes. Exit 0 when the session worked. When the server needs authorization
 * (the `auth/*` scenarios), the runtime's OAuth client (clients/mcp-oauth.ts: the SDK's `auth()`
 * over the runtime's record) builds the authorization URL; this script plays the user's browser
 * (the scenario's authorization server approves at once and redirects with a code), checks the
 * `state`, and finishes as the runtime's callback does. A pre-registered client comes from
 * MCP_CONFORMANCE_CONTEXT (`client_id`, `client_secret`), as an admin would configure it.
 *
 * Run (the suite needs Node >= 22: it imports `fs.globSync`):
 *   npx tsc -p tsconfig.json --outDir .build/mcp && \
 *   npx conformance client --command "node .build/mcp/bench/mcp-conformance.js" --scenario initialize
 *   npx conformance client --command "node .build/mcp/bench/mcp-conformance.js" --scenario tools_call
 */
import { createOutboundAgent } from '../services/shared/http/outbound-agent.js';
import { WorkstationEndpoints } from '../services/shared/http/outbound.js';
import { guardedFetch, sdkConnector } from '../services/agent-runtime/src/clients/mcp.js';
import { finishMcpAuthorization, VaultOAuthProvider } from '../services/agent-runtime/src/clients/mcp-oauth.js';
import { McpAuthorizationRequired, MemoryOAuthVault, type McpPreregisteredClient } from '../services/agent-runtime/src/domain/mcp/oauth.js';

/** Arguments for a tool from its JSON schema: numbers 1, 2, ...; booleans true; strings "x". */
function argsFor(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { type?: string }>;
  const out: Record<string, unknown> = {};
  let n = 1;
  for (const [k, p] of Object.entries(props)) out[k] = p.type === 'number' || p.type === 'integer' ? n++ : p.type === 'boolean' ? true : 'x';
  return out;
}

const REDIRECT = 'http://127.0.0.1:9/v1/oauth/mcp/callback';

async function run(url: string): Promise<void> {
  const policy = { own: new WorkstationEndpoints([]) };
  const dispatcher = createOutboundAgent(policy);
  const vault = new MemoryOAuthVault();
  const key = { tenantId: 'bench', userId: 'bench', serverId: 'conformance' };
  const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };
  const preregistered: McpPreregisteredClient | undefined = ctx.client_id ? { client_id: ctx.client_id, ...(ctx.client_secret ? { client_secret: ctx.client_secret } : {}) } : undefined;
  const connect = sdkConnector(policy, dispatcher, { vault, redirectUrl: REDIRECT });

  /** The user's browser: open the authorization URL, take the code from the redirect, finish as the callback would. */
  const authorize = async (authorizationUrl: string): Promise<void> => {
    const res = await guardedFetch(dispatcher)(authorizationUrl, { redirect: 'manual' });
    const back = new URL(res.headers.get('location') ?? '', authorizationUrl);
    const code = back.searchParams.get('code');
    const state = back.searchParams.get('state');
    if (!code) throw new Error(`the authorization server answered ${res.status} without a code`);
    if (!state || (await vault.byState(state))?.key.serverId !== key.serverId) throw new Error('the state came back changed');
    await vault.save(key, { ...await vault.load(key), state: undefined, state_expires_at: undefined });
    await finishMcpAuthorization(new VaultOAuthProvider(vault, key, REDIRECT, preregistered), url, code, guardedFetch(dispatcher));
  };
  /** `fn`, authorizing when the server asks (a step-up may ask again; at most 3 rounds). */
  const authorized = async <T>(fn: () => Promise<T>): Promise<T> => {
    for (let round = 0; ; round++) {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof McpAuthorizationRequired) || !err.authorizationUrl || round >= 2) throw err;
        await authorize(err.authorizationUrl);
      }
    }
  };

  const session = await authorized(() => connect({ transport: 'streamable_http', url, headers: {}, oauth: { key, ...(preregistered ? { preregistered } : {}) }, onToolsChanged: () => {}, onClose: () => {} }));
  try {
    const tools = await authorized(() => session.listTools(10_000));
    for (const t of tools) {
      const res = await authorized(() => session.callTool(t.name, argsFor(t.inputSchema), 10_000));
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
