/**
 * The app frame: resumes a session (stored refresh token, or the desktop's installer handoff on
 * first run, which then offers to pair a phone at `/account/welcome`), then shows sign-in or the
 * signed-in shell with its client-side routes.
 */
import { Suspense, lazy, useEffect } from 'react';
import { useApp } from '../store';
import { tokens } from '../api/tokens';
import { tryInstallerHandoff } from '../api/auth';
import { clearCache } from '../api/cache';
import { SignIn } from '../auth/SignIn';
import { callbackMessage, completeSignIn, isCallback, setCallbackError } from '../auth/oidc';
import { Shell } from './Shell';
import { ChatPage } from '../chat/ChatPage';
import { ApprovalsPage } from '../approvals/ApprovalsPage';
import { route } from './route';

const ReceiptsPage = lazy(() => import('../receipts/ReceiptsPage'));
const ReceiptDrawer = lazy(() => import('../receipts/ReceiptDrawer'));
const AdminPage = lazy(() => import('../admin/AdminPage'));
const KnowledgePage = lazy(() => import('../knowledge/KnowledgePage'));
const MemoryPage = lazy(() => import('../memory/MemoryPage'));
const ProfilePage = lazy(() => import('../profile/ProfilePage'));
const OverviewPage = lazy(() => import('../overview/OverviewPage'));
const NotificationsPage = lazy(() => import('../notifications/NotificationsPage'));
const AccountPage = lazy(() => import('../account/AccountPage'));
const AgentsPage = lazy(() => import('../agents/AgentsPage'));
const SkillsPage = lazy(() => import('../skills/SkillsPage'));
const McpPage = lazy(() => import('../mcp/McpPage'));
const PluginsPage = lazy(() => import('../plugins/PluginsPage'));
const IntegrationsPage = lazy(() => import('../integrations/IntegrationsPage'));

export function App() {
  const status = useApp((s) => s.authStatus);
  const path = useApp((s) => s.path);
  const openReceipt = useApp((s) => s.openReceipt);

  useEffect(() => {
    const off = tokens.on((e) => {
      if (e.kind === 'signedIn') useApp.getState().signedIn();
      else { clearCache(); useApp.getState().signedOut(e.reason); }
    });
    const onPop = (): void => useApp.getState().pathChanged(location.pathname);
    window.addEventListener('popstate', onPop);
    void (async () => {
      // Issue 15 item 1: the embedded IdP's redirect back (authorization code + PKCE).
      if (isCallback()) {
        try {
          const done = await completeSignIn();
          await tokens.accept(done.tokens, 'idp');
          useApp.getState().navigated(done.returnTo, { replace: true });
          useApp.getState().signedIn();
        } catch (err) {
          setCallbackError(callbackMessage(err));
          useApp.getState().navigated('/', { replace: true });
          useApp.getState().signedOut(null);
        }
        return;
      }
      if (await tokens.resume()) useApp.getState().signedIn();
      else if (await tryInstallerHandoff()) {
        // First run (DESIGN.md "Identity"): the installer's administrator is offered to pair a phone.
        useApp.getState().navigated('/account/welcome', { replace: true });
        useApp.getState().signedIn();
      } else if (useApp.getState().authStatus === 'booting') useApp.getState().signedOut(null);
    })();
    return () => { off(); window.removeEventListener('popstate', onPop); };
  }, []);

  if (status === 'booting') return <div className="boot" aria-busy="true">Loading…</div>;
  if (status === 'signedOut') return <SignIn />;
  const r = route(path);
  return (
    <Shell page={r.page}>
      <Suspense fallback={<div className="page-loading">Loading…</div>}>
        {r.page === 'chat' && <ChatPage sessionId={r.param} />}
        {r.page === 'receipts' && <ReceiptsPage turnId={r.param} />}
        {r.page === 'approvals' && <ApprovalsPage />}
        {r.page === 'admin' && <AdminPage tab={r.param} />}
        {r.page === 'knowledge' && <KnowledgePage param={r.param} />}
        {r.page === 'memory' && <MemoryPage />}
        {r.page === 'profile' && <ProfilePage />}
        {r.page === 'overview' && <OverviewPage />}
        {r.page === 'notifications' && <NotificationsPage />}
        {r.page === 'account' && <AccountPage param={r.param} />}
        {r.page === 'agents' && <AgentsPage />}
        {r.page === 'skills' && <SkillsPage />}
        {r.page === 'mcp' && <McpPage />}
        {r.page === 'plugins' && <PluginsPage />}
        {r.page === 'integrations' && <IntegrationsPage />}
        {openReceipt && <ReceiptDrawer turnId={openReceipt} />}
      </Suspense>
    </Shell>
  );
}
