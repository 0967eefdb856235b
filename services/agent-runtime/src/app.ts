/**
 * The agent runtime (spec "Services": agent runtime, port 8001) as the kit defines a service:
 * opens `<dbDir>/agent-runtime.sqlite` and its turn-event outbox, wires the clients of its peers
 * (inference router, guardrail, memory, knowledge, audit), the tool registry with the built-in
 * tools and the plug-in discovery (background work), the chat engine, and registers the routes of
 * `contracts.ts`.
 * The runtime argument is `AgentRuntimeHooks` (extra tools, plug-in sources; a supervisor's
 * ServiceRuntime is accepted and ignored).
 */
import { durableTurnEvents } from '../../shared/events/outbox.js';
import { durablePgTurnEvents } from '../../shared/events/outbox-pg-events.js';
import { defineService } from '../../shared/kit/service.js';
import { AuditClient } from '../../audit/src/client.js';
import { AttachmentClient } from './clients/attachments.js';
import { ContextClient } from './clients/context.js';
import { GuardrailClient } from './clients/guardrail.js';
import { isReady } from './clients/http.js';
import { InferenceClient } from './clients/inference.js';
import { serviceCaller } from './clients/service-call.js';
import { AGENT_RUNTIME_ERRORS, CHAT_BODY_LIMIT, type AgentRuntimeConfig, type AgentRuntimeHooks } from './contracts.js';
import { ApprovalCenter } from './domain/approvals.js';
import { ToolPolicies } from './domain/policies.js';
import { LiveReplay } from './domain/replay.js';
import { SessionService } from './domain/sessions.js';
import { startDiscovery } from './domain/tool-discovery.js';
import { ToolRegistry } from './domain/tool-registry.js';
import { approvalRoutes } from './routes/approvals.js';
import { chatRoutes } from './routes/chat.js';
import { folderRoutes } from './routes/folders.js';
import { policyRoutes } from './routes/policies.js';
import { replayRoutes } from './routes/replay.js';
import { HttpOverviewPeers } from './clients/overview.js';
import { workspaceSurfaces } from './domain/context/wiring.js';
import { contextRoutes } from './routes/context.js';
import { overviewRoutes } from './routes/overview.js';
import { HttpAdminPeers } from './clients/admin-peers.js';
import { PermissionProfiles } from './domain/admin/profiles.js';
import { TrackedChatEngine, TurnTracker } from './domain/admin/turn-tracker.js';
import { adminSurfaces } from './domain/admin/wiring.js';
import { adminRoutes } from './routes/admin.js';
import { accessRoutes } from './routes/admin-access.js';
import { KnowledgeAccessClient } from '../../knowledge/src/client.js';
import { KnowledgeScopeSync } from './domain/admin/knowledge-sync.js';
import { sessionRoutes } from './routes/sessions.js';
import { conversationRoutes } from './routes/conversations.js';
import { ConversationRuns } from './domain/conversations/runs.js';
import { ActiveRuns, ConversationService } from './domain/conversations/service.js';
import { openRuntimeStore, type RuntimeStore } from './store/runtime-store.js';
import { openPgRuntimeStore } from './store/pg/index.js';
import { leadWork, pgLeases, SOLE_INSTANCE } from '../../shared/db/leases.js';
import { notificationRoutes } from './routes/notifications.js';
import { openNotifications } from './domain/notifications/wiring.js';
import { openSharedBus } from '../../shared/shared-bus.js';
import { RuntimeChangeFeed } from './domain/change-feed.js';
import { RedisSharedRuns } from './clients/shared-runs.js';
import { busApprovalSignal, SharedNotificationHub } from './clients/shared-wakeups.js';
import { BUILTIN_PLUGIN, loadPlugin, pluginSources } from './tools/index.js';
import { ProfileCurationClient } from './clients/profile-curation.js';
import { ProfileCurator } from './domain/profile/curation.js';
import { ProfileService } from './domain/profile/service.js';
import { SecretVault } from './domain/secrets.js';
import { profileRoutes, profileTimezoneSeed } from './routes/profile.js';
import { secretRoutes } from './routes/secrets.js';
import { openDataKeyring } from './store/secret-key.js';
import { AgentCatalog } from './domain/agents/catalog.js';
import { SkillLibrary } from './domain/skills/library.js';
import { loadSkillTool } from './domain/skills/load-tool.js';
import { agentRoutes } from './routes/agents.js';
import { skillRoutes } from './routes/skills.js';
import { createOutboundAgent } from '../../shared/http/outbound-agent.js';
import { workstationEndpoints } from '../../shared/http/outbound.js';
import { guardedFetch, sdkConnector } from './clients/mcp.js';
import { finishMcpAuthorization, VaultOAuthProvider } from './clients/mcp-oauth.js';
import { McpAuthorizations, SealedMcpOAuthVault } from './domain/mcp/oauth-vault.js';
import { mcpOAuthRoutes } from './routes/mcp-oauth.js';
import { McpCatalog } from './domain/mcp/catalog.js';
import { McpConnections } from './domain/mcp/connections.js';
import type { ToolGate } from './domain/tool-policy.js';
import { mcpRoutes } from './routes/mcp.js';
import { Plugins } from './domain/mcp/plugins.js';
import { pluginRoutes } from './routes/mcp-plugins.js';
import { OpenIdOAuthClient } from './clients/oauth.js';
import { OAuthFlows } from './domain/oauth/flows.js';
import { OAuthProviders } from './domain/oauth/providers.js';
import { TokenRefresher } from './domain/oauth/refresher.js';
import { RUNTIME_PRODUCER } from './domain/notifications/wiring.js';
import { softNotify } from './domain/notifications/producers.js';
import { oauthRoutes } from './routes/oauth.js';
import { WebhookRunner } from './domain/webhooks/runner.js';
import { WebhookService } from './domain/webhooks/service.js';
import { auditedDeliveries, inboxNotifier } from './domain/webhooks/wiring.js';
import { webhookAdminRoutes } from './routes/webhooks.js';
import { webhookDeliveryRoutes } from './routes/webhook-delivery.js';
import { HttpConnectorKnowledge } from './clients/connector-knowledge.js';
import { connectorSources } from './clients/connector-sources.js';
import { ConnectorAdmin } from './domain/connectors/service.js';
import { ConnectorSync } from './domain/connectors/sync.js';
import { connectorRoutes } from './routes/connectors.js';

/** How often plug-in sources are probed once the first seconds are over, ms. */
const PLUGIN_PROBE_MS = 30_000;

/** How often the connector-sync leader looks for jobs other runtimes queued, ms (several instances on one database). */
const LEADER_TICK_MS = 3000;

/** How long `close()` waits for queued turn events to reach audit, ms. */
const EVENT_DRAIN_MS = 3000;

/** The agent runtime service. */
export const agentRuntimeService = defineService<AgentRuntimeConfig, AgentRuntimeHooks>({
  name: 'agent-runtime',
  errors: AGENT_RUNTIME_ERRORS,
  bodyLimit: CHAT_BODY_LIMIT,
  async setup(ctx) {
    const { cfg, logger } = ctx;
    const hooks = ctx.runtime;
    // Issue 21 item 1: PostgreSQL (schema `agent_runtime`) when cfg.database is set, else `<dbDir>/agent-runtime.sqlite`.
    const pgStore = cfg.database ? await openPgRuntimeStore(cfg.database, cfg.migrationsDir) : null;
    const store: RuntimeStore = pgStore ?? openRuntimeStore(cfg);
    // Once-per-deployment background work takes a lease when runtimes share a database (issue 21).
    const leases = pgStore ? pgLeases(pgStore.db) : SOLE_INSTANCE;
    ctx.onClose(() => store.close());
    ctx.app.health.check(async () => ((await store.ready()) ? true : `agent-runtime store ${store.isOpen ? 'unreachable' : 'closed'}`));
    // Issue 21 item 3: with REDIS_URL several runtimes share the store; pending approvals may be another runtime's.
    const bus = await openSharedBus(cfg.redisUrl, logger);
    if (bus) ctx.onClose(() => bus.close());
    const cancelled = bus ? 0 : await store.approvals.cancelPending(new Date().toISOString());
    if (cancelled) logger.warn({ cancelled }, 'approvals pending at the last stop were cancelled');

    // Durable: every event is on disk before the answer it belongs to completes (issue 11 item 7).
    // Issue 21 item 1: with a database the outbox is `agent_runtime.turn_outbox`, shared by every runtime.
    const events = cfg.database ? await durablePgTurnEvents(cfg.database, cfg, 'agent-runtime', logger, {}, ctx.onClose) : durableTurnEvents(cfg, 'agent-runtime', logger);
    ctx.onClose(async () => { await events.shutdown(EVENT_DRAIN_MS); });
    const model = new InferenceClient(cfg.serviceUrls['inference-router'], cfg.modelTimeoutSeconds * 1000);
    const guardrail = new GuardrailClient(cfg.serviceUrls.guardrail, cfg.sidecarTimeoutMs);
    const context = new ContextClient(cfg.serviceUrls.memory, cfg.serviceUrls.knowledge, cfg.sidecarTimeoutMs);
    const audit = new AuditClient({ baseUrl: cfg.serviceUrls.audit, service: 'agent-runtime', tenantId: cfg.tenantId, principalKeys: cfg.principalKeys });

    const tools = new ToolRegistry();
    tools.registerPlugin(BUILTIN_PLUGIN);
    if (hooks.extraTools?.length) tools.register('extra', hooks.extraTools);
    ctx.background('tool-discovery', () => startDiscovery({
      sources: hooks.pluginSources ?? pluginSources(), registry: tools, load: loadPlugin, log: logger,
      isReady: (service) => isReady(cfg.serviceUrls[service]),
    }, hooks.pluginProbeMs ?? PLUGIN_PROBE_MS));

    const permissionProfiles = new PermissionProfiles(store.permissionProfiles, cfg.groupRoleMap ?? null);
    // MCP servers (issue 17 item 3): URLs pass the outbound guard at registration and at connect.
    const mcpPolicy = { own: workstationEndpoints(cfg) };
    const mcpDispatcher = createOutboundAgent(mcpPolicy);
    let mcp: McpConnections | null = null;
    // Issue 21: what one runtime changes, the others reload (MCP tools, cached permission profiles).
    const changes = new RuntimeChangeFeed(bus);
    permissionProfiles.onChanged = (tenantId) => changes.publish({ kind: 'permission_profiles', tenant_id: tenantId });
    const mcpCatalog = new McpCatalog({
      store: store.mcpServers, policy: mcpPolicy, listener: {
        changed: (r) => { mcp?.listener.changed(r); changes.publish({ kind: 'mcp_server', op: 'changed', tenant_id: r.tenant_id, id: r.id }); },
        removed: (r) => { mcp?.listener.removed(r); changes.publish({ kind: 'mcp_server', op: 'removed', tenant_id: r.tenant_id, id: r.id }); },
      },
    });
    ctx.onClose(changes.subscribe((c) => {
      if (c.kind === 'permission_profiles') { permissionProfiles.invalidate(c.tenant_id); return; }
      if (c.op === 'removed') { mcp?.forgetServer(c.id); return; }
      void Promise.resolve(store.mcpServers.get(c.tenant_id, c.id)).then((row) => { if (row) mcp?.listener.changed(row); else mcp?.forgetServer(c.id); })
        .catch((err: unknown) => logger.warn({ err: (err as Error).message, server_id: c.id }, 'an MCP server changed by another runtime could not be read'));
    }));
    const plugins = new Plugins({ rules: store.pluginRules, registry: tools, servers: store.mcpServers });
    const toolGate = async (t: string, who: { userId?: string; id?: string; roles?: readonly string[]; groups?: readonly string[] }): Promise<ToolGate | null> => {
      const base = await permissionProfiles.toolGate(t, who as Parameters<PermissionProfiles['toolGate']>[1]);
      const uid = who.userId ?? who.id;
      // Plugins (issue 17 item 4): a tool group the caller may not see is never offered nor run.
      const plugin = await plugins.gate(t, who);
      const own = mcp && uid ? await mcp.gate(t, uid) : null;
      if (!own && !plugin) return base;
      return (tool) => (own ? own(tool) : true) && (plugin ? plugin(tool) : true) && (base ? base(tool) : true);
    };
    const policies = new ToolPolicies({
      base: cfg.toolPolicy, store: store.policies, tools, defaultAgentId: cfg.defaultAgentId, toolGate,
    });
    const notifications = openNotifications(cfg, store.notifications, logger, bus ? new SharedNotificationHub(bus) : undefined);
    const approvals = new ApprovalCenter(notifications.approvals(store.approvals), undefined, bus ? busApprovalSignal(bus) : null);
    // Issue 21: a conversation with a run on any runtime is busy on all; a cancel reaches the holder.
    const activeRuns = new ActiveRuns(bus ? new RedisSharedRuns(bus.commands, bus) : null);
    if (bus) await bus.ready();
    const sessions = new SessionService({
      sessions: store.sessions, folders: store.folders, model, defaultAgentId: cfg.defaultAgentId, titleGeneration: cfg.titleGeneration, log: logger,
    });
    const conversations = new ConversationService({ enabled: cfg.conversationsEnabled, store: store.conversations, sessions: store.sessions, active: activeRuns, tx: store.txAsync, log: logger });
    // Runs another live runtime holds are not this restart's to fail.
    const keep = activeRuns.shared ? await activeRuns.shared.live() : [];
    const interrupted = await store.conversations.failActiveRuns(new Date().toISOString(), 'runtime_restarted', 'the runtime stopped while the run was in progress', keep);
    if (interrupted) logger.warn({ interrupted }, 'conversation runs in progress at the last stop were failed');
    const turnTracker = new TurnTracker(store.turnStats, logger);
    // Profile and its drafts (issue 13 item 2); secrets (item 3): `vault.resolve(tenant, user | null, name)` is resolveSecret for MCP servers and connectors.
    const profiles = new ProfileService({ store: store.userProfiles, tx: store.txAsync, budgetTokens: cfg.profileBudgetTokens });
    const curator = new ProfileCurator({
      profiles, sessions: store.sessions, log: logger, timeoutMs: cfg.modelTimeoutSeconds * 1000,
      model: new ProfileCurationClient(cfg.serviceUrls['inference-router'], model, cfg.modelTimeoutSeconds * 1000),
    });
    ctx.onClose(() => curator.close());
    // One data keyring for the vault and the webhook secrets (issue 18 item 2); a failed open is retried on next use.
    let keyringOpen: ReturnType<typeof openDataKeyring> | null = null;
    const dataKeyring = (): ReturnType<typeof openDataKeyring> => {
      keyringOpen ??= openDataKeyring(cfg.dataDir, { mode: cfg.secretStore, log: logger }).catch((err: unknown) => { keyringOpen = null; throw err; });
      return keyringOpen;
    };
    const vault = new SecretVault({ store: store.secrets, log: logger, openKeyring: dataKeyring });
    // MCP authorization (issue 17 item 3): per-user OAuth records sealed under the data keyring; the callback is `{public_url}/v1/oauth/mcp/callback`.
    const mcpOAuth = { vault: new SealedMcpOAuthVault(store.mcpOAuth, dataKeyring), redirectUrl: `${cfg.publicUrl.replace(/\/+$/, '')}/v1/oauth/mcp/callback` };
    mcp = new McpConnections({ store: store.mcpServers, catalog: mcpCatalog, registry: tools, connect: sdkConnector(mcpPolicy, mcpDispatcher, mcpOAuth), resolveSecret: (t, u, n) => vault.resolve(t, u, n), log: logger });
    const mcpConnections = mcp;
    const mcpAuthorizations = new McpAuthorizations({
      vault: mcpOAuth.vault, catalog: mcpCatalog, connections: mcpConnections,
      finish: (key, url, code, pre) => finishMcpAuthorization(new VaultOAuthProvider(mcpOAuth.vault, key, mcpOAuth.redirectUrl, pre), url, code, guardedFetch(mcpDispatcher)),
    });
    ctx.onClose(async () => { await mcpConnections.closeAll(); await mcpDispatcher.close(); });
    ctx.background('mcp-servers', () => { void mcpConnections.warmAll(); });
    const workspace = workspaceSurfaces({
      settings: cfg, records: store.contextRecords, sessions: store.sessions, approvals, log: logger,
      peers: new HttpOverviewPeers({ router: cfg.serviceUrls['inference-router'], knowledge: cfg.serviceUrls.knowledge, auth: cfg.serviceUrls.auth }),
    });
    // Agents and skills (issue 17 items 1, 2): the catalog a chat's agent_id resolves in; skills offered by name, loaded by `load_skill`.
    const agents = new AgentCatalog({ store: store.agents, defaultAgentId: cfg.defaultAgentId });
    const skills = new SkillLibrary(store.skills);
    const engine = new TrackedChatEngine(turnTracker, {
      settings: cfg, sessions: store.sessions, conversations, model, guardrail, context, audit, events, tools, approvals,
      policyRules: (tenantId) => policies.rules(tenantId), toolGate,
      agentGate: (t, who) => permissionProfiles.agentGate(t, who), serviceUrls: cfg.serviceUrls,
      serviceCall: (headers, signal) => serviceCaller(cfg.serviceUrls, headers, signal), log: logger,
      attachments: new AttachmentClient(cfg.serviceUrls.knowledge, cfg.serviceUrls.sandbox), contextRecords: workspace.contextRecords,
      profile: profiles, agents, skills: { offered: (t, u) => skills.offered(t, u), byName: (t, u, n) => skills.byName(t, u, n), tool: loadSkillTool(skills) },
    }, { afterTurn: (p, o) => { sessions.titleAfterFirstTurn(p, o); curator.afterTurn(p, o); } });
    const replay = new LiveReplay(audit, model, events);
    const conversationRuns = new ConversationRuns({ conversations, store: store.conversations, sessions: store.sessions, active: activeRuns, engine, log: logger });

    // Parked runs hold their streams open: release them before the server waits for in-flight requests.
    ctx.app.addHook('preClose', async () => { await approvals.cancelAll('the runtime is stopping'); activeRuns.abortAll(); });
    const tenantId = cfg.tenantId;
    await ctx.app.register(profileTimezoneSeed, { tenantId, profiles });
    await ctx.app.register(chatRoutes, { tenantId, engine });
    await ctx.app.register(sessionRoutes, { tenantId, sessions });
    await ctx.app.register(folderRoutes, { tenantId, sessions });
    await ctx.app.register(approvalRoutes, { tenantId, approvals });
    await ctx.app.register(policyRoutes, { tenantId, policies });
    await ctx.app.register(replayRoutes, { tenantId, replay });
    await ctx.app.register(contextRoutes, { tenantId, records: workspace.contextRecords });
    await ctx.app.register(overviewRoutes, { tenantId, overview: workspace.overview, integrations: workspace.integrations });
    const admin = adminSurfaces({
      peers: new HttpAdminPeers({ serviceUrls: cfg.serviceUrls, tenantId, principalKeys: cfg.principalKeys }),
      approvals, stats: store.turnStats, tracker: turnTracker, policies, defaultAgentId: cfg.defaultAgentId,
    });
    await ctx.app.register(adminRoutes, { tenantId, ...admin });
    // The knowledge service narrows reads by the profiles' knowledge from a pushed copy (issue 13 item 8).
    const knowledgeSync = new KnowledgeScopeSync({
      port: new KnowledgeAccessClient({ baseUrl: cfg.serviceUrls.knowledge, tenantId, principalKeys: cfg.principalKeys }), profiles: permissionProfiles, log: logger,
    });
    ctx.onClose(() => knowledgeSync.close());
    ctx.background('knowledge-profile-sync', () => { void knowledgeSync.push(tenantId); });
    await ctx.app.register(accessRoutes, { tenantId, profiles: permissionProfiles, sync: knowledgeSync });
    await ctx.app.register(conversationRoutes, { tenantId, enabled: cfg.conversationsEnabled, conversations, runs: conversationRuns });
    await ctx.app.register(notificationRoutes, { tenantId, notifications: notifications.inbox, producers: cfg.notificationProducers });
    await ctx.app.register(profileRoutes, { tenantId, profiles });
    await ctx.app.register(secretRoutes, { tenantId, vault });
    await ctx.app.register(agentRoutes, { tenantId, agents });
    await ctx.app.register(skillRoutes, { tenantId, skills });
    await ctx.app.register(mcpRoutes, { tenantId, catalog: mcpCatalog, connections: mcpConnections });
    await ctx.app.register(mcpOAuthRoutes, { tenantId, authorizations: mcpAuthorizations });
    await ctx.app.register(pluginRoutes, { tenantId, plugins });
    // Per-user OAuth integrations (issue 18 item 1): provider calls through the outbound guard; tokens sealed under the data keyring; a background refresher.
    const oauthDispatcher = createOutboundAgent(mcpPolicy);
    const oauthClient = new OpenIdOAuthClient({ dispatcher: oauthDispatcher, policy: mcpPolicy });
    const oauthProviders = new OAuthProviders({ store: store.oauth, client: oauthClient, secret: (t, n) => vault.resolve(t, null, n) });
    let oauthRefresher: TokenRefresher | null = null;
    const oauthFlows = new OAuthFlows({
      store: store.oauth, providers: oauthProviders, client: oauthClient, openKeyring: dataKeyring, publicUrl: cfg.publicUrl, log: logger,
      notify: softNotify((n) => notifications.inbox.deliver(RUNTIME_PRODUCER, n), logger), changed: () => oauthRefresher?.poke(),
    });
    oauthRefresher = new TokenRefresher(oauthFlows, logger);
    const refresher = oauthRefresher;
    ctx.onClose(async () => { refresher.stop(); await oauthDispatcher.close(); });
    ctx.background('oauth-refresher', () => leadWork(leases, 'oauth-refresher', { start: () => refresher.start(), stop: () => refresher.stop(), log: logger }));
    workspace.integrations.register('oauth', (who) => oauthFlows.integrations(who));
    await ctx.app.register(oauthRoutes, { tenantId, providers: oauthProviders, flows: oauthFlows, publicUrl: cfg.publicUrl });
    // Signed webhooks (issue 18 item 2): an agent_run target runs as a turn of its own (runner.ts).
    const webhookRunner = new WebhookRunner({ engine, events, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, log: logger });
    ctx.app.addHook('preClose', async () => { await webhookRunner.close(); });
    const webhooks = new WebhookService({
      store: store.webhooks, keyring: dataKeyring, runner: webhookRunner, notifier: inboxNotifier(notifications.inbox), audit: auditedDeliveries(audit, logger),
      agentVisible: async (t, u, a) => { try { await agents.get({ tenantId: t, userId: u, isAdmin: true }, a); return true; } catch { return false; } },
    });
    await ctx.app.register(webhookAdminRoutes, { tenantId, webhooks });
    await ctx.app.register(webhookDeliveryRoutes, { tenantId, webhooks });
    // Knowledge connectors (issue 18 item 3): jobs persisted, resumed at start, scheduled in the background, stopped on close.
    const connectorDeps = {
      store: store.connectors, log: logger, open: connectorSources((t, n) => vault.resolve(t, null, n), mcpPolicy),
      sink: new HttpConnectorKnowledge({ baseUrl: cfg.serviceUrls.knowledge, principalKeys: cfg.principalKeys }),
    };
    // Several runtimes on one PostgreSQL database (issue 21): connector jobs and the OAuth refresher run on the lease holder only.
    const connectorSync = new ConnectorSync({ ...connectorDeps, follower: leases !== SOLE_INSTANCE });
    ctx.app.addHook('preClose', async () => { await connectorSync.close(); });
    // Resumed jobs first, then the schedule (looked at often when other runtimes queue jobs).
    ctx.background('connector-sync', () => leadWork(leases, 'connector-sync', {
      start: () => { void connectorSync.lead(leases === SOLE_INSTANCE ? undefined : LEADER_TICK_MS); }, stop: () => connectorSync.follow(), log: logger,
    }));
    await ctx.app.register(connectorRoutes, { tenantId, connectors: new ConnectorAdmin(connectorDeps), sync: connectorSync });
  },
});
