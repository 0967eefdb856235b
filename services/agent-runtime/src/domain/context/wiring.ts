/**
 * The workspace surfaces of issue 13 items 5 and 6 as app.ts wires them: the context records (the
 * chat engine's `contextRecords` port and the `/v1/context/*` routes), the integration registry with
 * today's built-in sources, and the overview over the runtime's stores and its peers.
 */
import { CONTEXT_RECORDS_PER_USER_DEFAULT, type AgentRuntimeSettings, type ApprovalView } from '../../contracts.js';
import { promptBudgetTokens } from '../chat/build-prompt.js';
import { IntegrationRegistry, phoneSource, registerBuiltinIntegrations } from '../integrations.js';
import { OverviewService, type OverviewPeers } from '../overview.js';
import type { SessionStore } from '../ports.js';
import type { ContextRecordStore } from './ports.js';
import { ContextRecords } from './service.js';

/** What the surfaces are built from. */
export interface WorkspaceSurfacesDeps {
  settings: Pick<AgentRuntimeSettings, 'contextBudgetTokens' | 'responseReserveTokens' | 'contextRecordsPerUser' | 'defaultAgentId'>;
  records: ContextRecordStore;
  sessions: Pick<SessionStore, 'list'>;
  approvals: { list(tenantId: string, userId: string | null, status: string | null, limit?: number): Promise<ApprovalView[]> };
  peers: OverviewPeers;
  log: { warn(obj: object, msg: string): void };
}

/** The wired surfaces. */
export interface WorkspaceSurfaces {
  contextRecords: ContextRecords;
  integrations: IntegrationRegistry;
  overview: OverviewService;
}

/** Build the context records, the integration registry and the overview. */
export function workspaceSurfaces(d: WorkspaceSurfacesDeps): WorkspaceSurfaces {
  const s = d.settings;
  const contextRecords = new ContextRecords({
    store: d.records, budgetTokens: promptBudgetTokens(s), keepPerUser: s.contextRecordsPerUser ?? CONTEXT_RECORDS_PER_USER_DEFAULT, log: d.log,
  });
  const integrations = registerBuiltinIntegrations(new IntegrationRegistry());
  integrations.register('phone', phoneSource(d.peers));
  const overview = new OverviewService({
    peers: d.peers, integrations, sessions: d.sessions, approvals: d.approvals, defaultAgentId: s.defaultAgentId,
    recentTurns: (tenantId, userId, limit) => contextRecords.recent(tenantId, userId, limit),
  });
  return { contextRecords, integrations, overview };
}
