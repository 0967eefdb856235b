/**
 * Admin: mission control (the home tab), onboarding, roles and permission profiles, policies, AgentOps
 * (issue 13 item 8), providers and roles, services, code sandbox, audit chain, users, identity (issue 15
 * item 5), usage and budgets (tabs).
 */
import { Link } from '../app/Link';
import { ProvidersPanel } from './ProvidersPanel';
import { StatusPanel } from './StatusPanel';
import { AuditPanel } from './AuditPanel';
import { UsersPanel } from './UsersPanel';
import { UsagePanel } from './UsagePanel';
import { SandboxPanel } from './SandboxPanel';
import { MissionControlPanel } from './MissionControlPanel';
import { OnboardingPanel } from './OnboardingPanel';
import { RolesPanel } from './RolesPanel';
import { PoliciesPanel } from './PoliciesPanel';
import { AgentOpsPanel } from './AgentOpsPanel';
import { IdentityPanel } from './IdentityPanel';
import { WebhooksPanel } from './WebhooksPanel';
import { ConnectorsPanel } from './ConnectorsPanel';
import { TopologyPanel } from './TopologyPanel';
import { StackPanel } from './StackPanel';
import { ServicesPanel } from './ServicesPanel';
import { UpdatesPanel } from './UpdatesPanel';
import { JobsPanel } from './JobsPanel';
import { BackupsPanel } from './BackupsPanel';
import { KeysPanel } from './KeysPanel';
import { EgressPanel } from './EgressPanel';

const TABS = [
  ['mission-control', 'Mission control'],
  ['onboarding', 'Onboarding'],
  ['providers', 'Providers & roles'],
  ['services', 'Services'],
  ['topology', 'Topology'],
  ['stack', 'Stack'],
  ['updates', 'Updates'],
  ['jobs', 'Jobs'],
  ['sandbox', 'Sandbox'],
  ['audit', 'Audit chain'],
  ['users', 'Users'],
  ['identity', 'Identity'],
  ['usage', 'Usage & budgets'],
  ['roles', 'Roles'],
  ['policies', 'Policies'],
  ['agentops', 'AgentOps'],
  ['webhooks', 'Webhooks'],
  ['connectors', 'Connectors'],
  ['backups', 'Backups'],
  ['keys', 'Keys'],
  ['egress', 'Egress'],
] as const;

export default function AdminPage({ tab }: { tab: string | null }) {
  const current = TABS.some(([id]) => id === tab) ? tab! : 'mission-control';
  return (
    <div className="page admin">
      <h1>Admin</h1>
      <nav className="tabs" aria-label="Admin sections">
        {TABS.map(([id, label]) => <Link key={id} to={`/admin/${id}`} current={id === current} className="tab">{label}</Link>)}
      </nav>
      {current === 'mission-control' && <MissionControlPanel />}
      {current === 'onboarding' && <OnboardingPanel />}
      {current === 'roles' && <RolesPanel />}
      {current === 'policies' && <PoliciesPanel />}
      {current === 'agentops' && <AgentOpsPanel />}
      {current === 'providers' && <ProvidersPanel />}
      {current === 'services' && <><StatusPanel /><ServicesPanel /></>}
      {current === 'topology' && <TopologyPanel />}
      {current === 'stack' && <StackPanel />}
      {current === 'updates' && <UpdatesPanel />}
      {current === 'jobs' && <JobsPanel />}
      {current === 'egress' && <EgressPanel />}
      {current === 'sandbox' && <SandboxPanel />}
      {current === 'audit' && <AuditPanel />}
      {current === 'users' && <UsersPanel />}
      {current === 'identity' && <IdentityPanel />}
      {current === 'usage' && <UsagePanel />}
      {current === 'webhooks' && <WebhooksPanel />}
      {current === 'connectors' && <ConnectorsPanel />}
      {current === 'backups' && <BackupsPanel />}
      {current === 'keys' && <KeysPanel />}
    </div>
  );
}
