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
import { ChatEngine } from './domain/chat-engine.js';
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
import { sessionRoutes } from './routes/sessions.js';
import { openRuntimeStore } from './store/runtime-store.js';
import { BUILTIN_PLUGIN, loadPlugin, pluginSources } from './tools/index.js';

/** How often plug-in sources are probed once the first seconds are over, ms. */
const PLUGIN_PROBE_MS = 30_000;

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
    const store = openRuntimeStore(cfg);
    ctx.onClose(() => store.close());
    const cancelled = store.approvals.cancelPending(new Date().toISOString());
    if (cancelled) logger.warn({ cancelled }, 'approvals pending at the last stop were cancelled');

    // Durable: every event is on disk before the answer it belongs to completes (issue 11 item 7).
    const events = durableTurnEvents(cfg, 'agent-runtime', logger);
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

    const policies = new ToolPolicies({ base: cfg.toolPolicy, store: store.policies, tools, defaultAgentId: cfg.defaultAgentId });
    const approvals = new ApprovalCenter(store.approvals);
    const sessions = new SessionService({
      sessions: store.sessions, folders: store.folders, model, defaultAgentId: cfg.defaultAgentId, titleGeneration: cfg.titleGeneration, log: logger,
    });
    const engine = new ChatEngine({
      settings: cfg, sessions: store.sessions, model, guardrail, context, audit, events, tools, approvals,
      policyRules: (tenantId) => policies.rules(tenantId), serviceUrls: cfg.serviceUrls,
      serviceCall: (headers, signal) => serviceCaller(cfg.serviceUrls, headers, signal), log: logger,
      attachments: new AttachmentClient(cfg.serviceUrls.knowledge, cfg.serviceUrls.sandbox),
    }, { afterTurn: (p, o) => sessions.titleAfterFirstTurn(p, o) });
    const replay = new LiveReplay(audit, model, events);

    // Parked runs hold their streams open: release them before the server waits for in-flight requests.
    ctx.app.addHook('preClose', async () => { approvals.cancelAll('the runtime is stopping'); });
    const tenantId = cfg.tenantId;
    await ctx.app.register(chatRoutes, { tenantId, engine });
    await ctx.app.register(sessionRoutes, { tenantId, sessions });
    await ctx.app.register(folderRoutes, { tenantId, sessions });
    await ctx.app.register(approvalRoutes, { tenantId, approvals });
    await ctx.app.register(policyRoutes, { tenantId, policies });
    await ctx.app.register(replayRoutes, { tenantId, replay });
  },
});
