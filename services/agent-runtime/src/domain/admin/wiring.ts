/**
 * The admin surfaces' services over their sources (issue 13 item 8), built once in app.ts:
 * mission control, the onboarding checklist, the policy hub and AgentOps.
 */
import { SERVICE_NAMES } from '../../../../shared/services.js';
import type { ApprovalCenter } from '../approvals.js';
import type { ToolPolicies } from '../policies.js';
import { AgentOpsService } from './agentops.js';
import { MissionControlService } from './mission-control.js';
import { OnboardingChecklistService } from './onboarding.js';
import { PolicyHub } from './policy-hub.js';
import type { AdminPeers, TurnStatsStore } from './ports.js';
import type { TurnTracker } from './turn-tracker.js';

/** What the admin services read. */
export interface AdminSources {
  peers: AdminPeers;
  approvals: Pick<ApprovalCenter, 'list'>;
  stats: TurnStatsStore;
  tracker: Pick<TurnTracker, 'active'>;
  policies: ToolPolicies;
  defaultAgentId: string;
}

/** The admin services. */
export interface AdminSurfaces {
  missionControl: MissionControlService;
  onboarding: OnboardingChecklistService;
  policyHub: PolicyHub;
  agentOps: AgentOpsService;
}

/** Build the admin services over `s`. */
export function adminSurfaces(s: AdminSources): AdminSurfaces {
  return {
    missionControl: new MissionControlService({
      peers: s.peers, approvals: s.approvals, tracker: s.tracker, stats: s.stats, services: SERVICE_NAMES, self: 'agent-runtime',
    }),
    onboarding: new OnboardingChecklistService(s.peers),
    policyHub: new PolicyHub(s.policies, s.peers),
    agentOps: new AgentOpsService({ stats: s.stats, peers: s.peers, defaultAgentId: s.defaultAgentId }),
  };
}
