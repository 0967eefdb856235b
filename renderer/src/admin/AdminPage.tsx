/** Admin: providers and roles, services, code sandbox, audit chain, users, usage and budgets (tabs). */
import { Link } from '../app/Link';
import { ProvidersPanel } from './ProvidersPanel';
import { StatusPanel } from './StatusPanel';
import { AuditPanel } from './AuditPanel';
import { UsersPanel } from './UsersPanel';
import { UsagePanel } from './UsagePanel';
import { SandboxPanel } from './SandboxPanel';

const TABS = [
  ['providers', 'Providers & roles'],
  ['services', 'Services'],
  ['sandbox', 'Sandbox'],
  ['audit', 'Audit chain'],
  ['users', 'Users'],
  ['usage', 'Usage & budgets'],
] as const;

export default function AdminPage({ tab }: { tab: string | null }) {
  const current = TABS.some(([id]) => id === tab) ? tab! : 'providers';
  return (
    <div className="page admin">
      <h1>Admin</h1>
      <nav className="tabs" aria-label="Admin sections">
        {TABS.map(([id, label]) => <Link key={id} to={`/admin/${id}`} current={id === current} className="tab">{label}</Link>)}
      </nav>
      {current === 'providers' && <ProvidersPanel />}
      {current === 'services' && <StatusPanel />}
      {current === 'sandbox' && <SandboxPanel />}
      {current === 'audit' && <AuditPanel />}
      {current === 'users' && <UsersPanel />}
      {current === 'usage' && <UsagePanel />}
    </div>
  );
}
