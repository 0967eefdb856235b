/**
 * Live MCP connections and the tools they bring (issue 17 item 3). A server is connected on demand
 * (its tools listed when it is registered or the runtime starts, a call or a health check when no
 * session is open), one cached session per server, or per (server, user) when the server is
 * personal or its env/headers reference secrets (each user's secrets are their own). `${secret:NAME}`
 * is resolved from the user's then the tenant's secret store at connect time and is never logged or
 * answered. The server's tools join the registry under `mcp:<server_id>` as `mcp_<8>_<tool>`,
 * re-registered on `notifications/tools/list_changed`. A call that fails at the server's end (the
 * process died, the connection broke, a timeout) throws `McpServerFailure`, which the tool loop turns
 * into the `mcp_failures` stream event; the turn goes on. Every session is closed on shutdown.
 */
import type { AgentTool, McpHealth, McpToolList } from '../../contracts.js';
import type { ToolGate } from '../tool-policy.js';
import { SECRET_REF_RE } from '../../contracts.js';
import type { ToolRegistry } from '../tool-registry.js';
import type { McpCatalog } from './catalog.js';
import { mcpSource, mcpToolName, mcpToolPolicy, serverOfSource } from './naming.js';
import type { McpConnector, McpServerRow, McpServerStore, McpSession, McpToolInfo } from './ports.js';

/** A call or a listing that failed at the server's end; carries what `mcp_failures` reports. */
export class McpServerFailure extends Error {
  /** `cause`: the connector's error (e.g. `McpAuthorizationRequired` with the URL the user is to open). */
  constructor(readonly serverId: string, readonly serverName: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'McpServerFailure';
  }

  /** The `mcp_failures` entry (spec "Chat stream events"). */
  get failure(): { server_id: string; server_name: string; error: string } {
    return { server_id: this.serverId, server_name: this.serverName, error: this.message };
  }
}

/** Resolves a secret by name for a tenant and user (null user: tenant only). */
export type SecretResolver = (tenantId: string, userId: string | null, name: string) => Promise<string | null>;

/** Settings of the connections. */
export interface McpConnectionDeps {
  store: McpServerStore;
  catalog: McpCatalog;
  registry: ToolRegistry;
  connect: McpConnector;
  resolveSecret: SecretResolver;
  log: { warn(o: object, msg: string): void; info(o: object, msg: string): void };
  /** Timeout of a tool call, ms (default 60 s). */
  callTimeoutMs?: number;
  /** Timeout of a ping or a listing, ms (default 5 s). */
  healthTimeoutMs?: number;
}

interface Open { session: Promise<McpSession>; tools: McpToolInfo[] | null }

function usesSecrets(row: McpServerRow): boolean {
  return new RegExp(SECRET_REF_RE.source).test(row.env_json + row.headers_json);
}

/** The MCP connections of the runtime. */
export class McpConnections {
  private readonly open = new Map<string, Open>();
  private closing = false;

  constructor(private readonly d: McpConnectionDeps) {}

  /** One session per server, or per (server, user) when the user's secrets or OAuth tokens may differ (personal, secrets, streamable HTTP). */
  private key(row: McpServerRow, userId: string | null): string {
    return row.owner_id !== '' || usesSecrets(row) || row.transport === 'streamable_http' ? `${row.id}\u0000${userId ?? ''}` : row.id;
  }

  private async resolveMap(row: McpServerRow, userId: string | null, json: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(JSON.parse(json) as Record<string, string>)) {
      let value = v;
      for (const m of v.matchAll(new RegExp(SECRET_REF_RE.source, 'g'))) {
        const secret = await this.d.resolveSecret(row.tenant_id, userId, m[1]!);
        if (secret === null) throw new McpServerFailure(row.id, row.name, `the secret ${m[1]} referenced by ${k} is not set`);
        value = value.split(m[0]).join(secret);
      }
      out[k] = value;
    }
    return out;
  }

  /** The admin's pre-registered OAuth client of `row`, its secret reference resolved (user then tenant store). */
  async preregistered(row: McpServerRow, userId: string): Promise<{ preregistered?: { client_id: string; client_secret?: string } }> {
    if (!row.oauth_client_json) return {};
    const c = JSON.parse(row.oauth_client_json) as { client_id: string; client_secret?: string };
    if (!c.client_secret) return { preregistered: { client_id: c.client_id } };
    const secret = (await this.resolveMap(row, userId, JSON.stringify({ client_secret: c.client_secret }))).client_secret!;
    return { preregistered: { client_id: c.client_id, client_secret: secret } };
  }

  /** The session of `row` for `userId`, opened when none is. */
  private session(row: McpServerRow, userId: string | null): Promise<McpSession> {
    if (this.closing) return Promise.reject(new McpServerFailure(row.id, row.name, 'the runtime is stopping'));
    const key = this.key(row, userId);
    const cached = this.open.get(key);
    if (cached) return cached.session;
    const entry: Open = { session: Promise.resolve(null as never), tools: null };
    entry.session = (async () => {
      const spec = row.transport === 'stdio'
        ? { transport: row.transport, command: row.command!, args: JSON.parse(row.args_json) as string[], env: await this.resolveMap(row, userId, row.env_json) }
        : {
          transport: row.transport, url: row.url!, headers: await this.resolveMap(row, userId, row.headers_json),
          // MCP authorization is the user's own: no user (warming a tenant server), no OAuth client.
          ...(userId ? { oauth: { key: { tenantId: row.tenant_id, userId, serverId: row.id }, ...await this.preregistered(row, userId) } } : {}),
        };
      return this.d.connect({
        ...spec,
        onToolsChanged: (tools) => { entry.tools = tools; this.registerTools(row, tools); },
        onClose: () => { if (this.open.get(key) === entry) this.open.delete(key); },
      });
    })();
    entry.session.catch(() => { if (this.open.get(key) === entry) this.open.delete(key); });
    this.open.set(key, entry);
    return entry.session;
  }

  /** Drop (and close) one user's session of a server (their authorization changed). */
  async forget(serverId: string, userId: string): Promise<void> {
    const k = `${serverId}\u0000${userId}`;
    const e = this.open.get(k);
    this.open.delete(k);
    await e?.session.then((s) => s.close(), () => {});
  }

  /** Drop (and close) the sessions of a server. */
  private async drop(serverId: string): Promise<void> {
    const closing: Array<Promise<void>> = [];
    for (const [k, e] of this.open) {
      if (k === serverId || k.startsWith(`${serverId}\u0000`)) {
        this.open.delete(k);
        closing.push(e.session.then((s) => s.close(), () => {}));
      }
    }
    await Promise.all(closing);
  }

  private failure(row: McpServerRow, err: unknown): McpServerFailure {
    if (err instanceof McpServerFailure) return err;
    const msg = (err as Error)?.message ?? String(err);
    return new McpServerFailure(row.id, row.name, msg.replace(/\s+/g, ' ').slice(0, 300), err);
  }

  /** Register `tools` of `row` in the registry (replacing its earlier ones). */
  private registerTools(row: McpServerRow, tools: readonly McpToolInfo[]): void {
    const seen = new Set<string>();
    const list: AgentTool[] = [];
    for (const t of tools) {
      const name = mcpToolName(row.id, t.name);
      if (seen.has(name)) continue;
      seen.add(name);
      list.push(this.agentTool(row, t, name));
    }
    this.d.registry.register(mcpSource(row.id), list);
  }

  private agentTool(row: McpServerRow, t: McpToolInfo, name: string): AgentTool {
    const params = t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : { type: 'object', properties: {} };
    return {
      definition: { type: 'function', function: { name, description: `${t.description ?? t.name} (MCP server "${row.name}")`.slice(0, 1024), parameters: params } },
      policy: mcpToolPolicy(row.trusted === 1, t),
      mcp: { server_id: row.id, server_name: row.name, tool: t.name },
      execute: async (args, ctx) => {
        const current = await this.d.store.get(ctx.tenantId, row.id);
        if (!current || !(await this.d.catalog.visibleTo(current, ctx.userId))) return { isError: true, content: `the MCP server "${row.name}" is not available to you` };
        let session: McpSession;
        try { session = await this.session(current, ctx.userId); } catch (err) { throw this.failure(current, err); }
        try {
          const res = await session.callTool(t.name, args, this.d.callTimeoutMs ?? 60_000, ctx.signal);
          return res.isError ? { isError: true, content: res.text || 'the tool reported an error' } : res.text;
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          await this.drop(current.id);
          throw this.failure(current, err);
        }
      },
    };
  }

  /** List a server's tools (connecting when needed) and register them. @throws McpServerFailure. */
  async refresh(row: McpServerRow, userId: string | null = null): Promise<McpToolInfo[]> {
    try {
      const s = await this.session(row, userId);
      const tools = await s.listTools(this.d.healthTimeoutMs ?? 5000);
      this.registerTools(row, tools);
      return tools;
    } catch (err) {
      await this.drop(row.id);
      throw this.failure(row, err);
    }
  }

  /** Connect every stored server in the background and register its tools (failures are logged). */
  async warmAll(): Promise<void> {
    await Promise.all((await this.d.store.listAll()).map(async (row) => {
      try { await this.refresh(row, row.owner_id === '' ? null : row.owner_id); } catch (err) {
        this.d.log.warn({ server_id: row.id, err: (err as Error).message }, 'an MCP server could not be listed');
      }
    }));
  }

  /** The catalog's listener: a changed server is re-listed in the background; a removed one dropped. */
  get listener(): { changed(row: McpServerRow): void; removed(row: McpServerRow): void } {
    return {
      changed: (row) => {
        void this.drop(row.id).then(() => this.refresh(row, row.owner_id === '' ? null : row.owner_id)).catch((err: unknown) => {
          this.d.log.warn({ server_id: row.id, err: (err as Error).message }, 'an MCP server could not be listed');
        });
      },
      removed: (row) => { this.forgetServer(row.id); },
    };
  }

  /** A server removed (here or through another runtime): its tools leave the registry, its sessions close. */
  forgetServer(serverId: string): void {
    this.d.registry.unregister(mcpSource(serverId));
    void this.drop(serverId);
  }

  /** Health: ping with a timeout (a listing when the server lacks ping). Never throws. */
  async health(row: McpServerRow, userId: string | null): Promise<McpHealth> {
    const t0 = performance.now();
    const checkedAt = new Date().toISOString();
    try {
      const s = await this.session(row, userId);
      const method = await s.ping(this.d.healthTimeoutMs ?? 5000);
      return { server_id: row.id, ok: true, method, latency_ms: Math.round((performance.now() - t0) * 10) / 10, error: null, checked_at: checkedAt };
    } catch (err) {
      await this.drop(row.id);
      return { server_id: row.id, ok: false, method: null, latency_ms: null, error: this.failure(row, err).message, checked_at: checkedAt };
    }
  }

  /** A server's tools as registered. @throws McpServerFailure when it cannot be listed. */
  async tools(row: McpServerRow, userId: string | null): Promise<McpToolList> {
    const tools = await this.refresh(row, userId);
    return { items: tools.map((t) => ({ name: mcpToolName(row.id, t.name), tool: t.name, description: t.description ?? '', policy: mcpToolPolicy(row.trusted === 1, t), ...(t.annotations ? { annotations: t.annotations } : {}) })) };
  }

  /**
   * The gate of MCP tools for a caller: tools of servers they may not see (another user's personal
   * server, a tenant server they opted out of) are never offered nor run. Other tools pass. The
   * servers the caller sees are read once here (tenant servers not opted out, and their own), so
   * the gate itself is synchronous on both engines.
   */
  async gate(tenantId: string, userId: string): Promise<ToolGate> {
    const [rows, out] = await Promise.all([this.d.store.list(tenantId, userId), this.d.store.optOuts(tenantId, userId)]);
    const visible = new Set(rows.filter((r) => (r.owner_id === '' ? !out.has(r.id) : r.owner_id === userId)).map((r) => r.id));
    return (tool) => {
      const source = this.d.registry.get(tool)?.source;
      const serverId = source ? serverOfSource(source) : null;
      return !serverId || visible.has(serverId);
    };
  }

  /** Close every session (shutdown: stdio children are ended by the SDK's close). */
  async closeAll(): Promise<void> {
    this.closing = true;
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((e) => e.session.then((s) => s.close(), () => {})));
  }
}
