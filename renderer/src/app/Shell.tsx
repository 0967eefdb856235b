/** Signed-in frame: the top bar with the sections and the user menu. */
import type { ReactNode } from 'react';
import { useApp } from '../store';
import { useQuery } from '../api/cache';
import { signOut } from '../api/auth';
import type { ApprovalView, Page, ProfileView } from '../api/types';
import { Link } from './Link';
import { NotificationBell } from '../notifications/Bell';

export function Shell({ page, children }: { page: string; children: ReactNode }) {
  const me = useQuery<ProfileView>('/v1/user/me');
  const pending = useQuery<Page<ApprovalView>>('/v1/user/approvals?status=pending');
  const isAdmin = me.data?.roles.includes('admin') ?? false;
  const count = pending.data?.items?.length ?? 0;
  const navigated = useApp((s) => s.navigated);
  return (
    <div className="shell">
      <header className="topbar">
        <button type="button" className="brand" onClick={() => navigated('/chat')}>svc</button>
        <nav aria-label="Sections">
          <Link to="/overview" current={page === 'overview'}>Overview</Link>
          <Link to="/chat" current={page === 'chat'}>Chat</Link>
          <Link to="/knowledge" current={page === 'knowledge'}>Knowledge</Link>
          <Link to="/memory" current={page === 'memory'}>Memory</Link>
          <Link to="/agents" current={page === 'agents'}>Agents</Link>
          <Link to="/skills" current={page === 'skills'}>Skills</Link>
          <Link to="/mcp" current={page === 'mcp'}>MCP</Link>
          {isAdmin && <Link to="/plugins" current={page === 'plugins'}>Plugins</Link>}
          <Link to="/receipts" current={page === 'receipts'}>Receipts</Link>
          <Link to="/approvals" current={page === 'approvals'}>Approvals{count > 0 && <span className="count" aria-label={`${count} pending`}>{count}</span>}</Link>
          {isAdmin && <Link to="/admin" current={page === 'admin'}>Admin</Link>}
        </nav>
        <div className="who">
          <NotificationBell />
          <Link to="/profile" current={page === 'profile'} className="who-profile"><span title={me.data?.email ? `${me.data.email}: profile and secrets` : 'Profile and secrets'}>{me.data?.display_name || me.data?.email || 'Profile'}</span></Link>
          <Link to="/integrations" current={page === 'integrations'}><span title="Services you connect with your account">Integrations</span></Link>
          <Link to="/account" current={page === 'account'}><span title="Phones, recovery codes and sign-in">Account</span></Link>
          <button type="button" className="link" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main className="content">{children}</main>
    </div>
  );
}
