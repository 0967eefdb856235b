/**
 * MCP servers (issue 17 item 6; spec "Agent runtime surfaces" `/v1/user/mcp-servers`,
 * `/v1/admin/mcp-servers/*`): the tenant's servers and the user's own, each with live health, its
 * tools and their approval policy; users add personal streamable HTTP servers, delete their own and
 * opt out of tenant ones; admins register, check and delete tenant servers (stdio or HTTP).
 */
import { useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { McpServerView, ProfileView } from '../api/types';
import { useAction } from '../app/use-action';
import { listOf, notAvailable, useFreshQuery } from '../agents/catalog';
import { HealthBadge } from './health';
import { ServerTools } from './tools';
import { RegisterServer } from './forms';
import { UserPlugins } from '../plugins/UserPlugins';
import { McpAuthorize } from './authorize';
import '../agents/agents.css';

function where(s: McpServerView): string {
  if (s.transport === 'stdio') return [s.command ?? '', ...(s.args ?? [])].join(' ').trim() || 'stdio';
  return s.url ?? '';
}

/** One server. `admin` = the admin list (admin routes); else the user's list. */
function ServerCard({ s, admin, me }: { s: McpServerView; admin: boolean; me: string | null }) {
  const [open, setOpen] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const { busy, error, run } = useAction();
  const base = `${admin ? '/v1/admin/mcp-servers' : '/v1/user/mcp-servers'}/${encodeURIComponent(s.id)}`;
  const own = !admin && s.scope === 'personal' && (!s.owner_id || s.owner_id === me);
  const tenant = !admin && !own;
  const refresh = (): void => { invalidate('/v1/user/mcp-servers'); invalidate('/v1/admin/mcp-servers'); invalidate('/v1/tools'); };
  return (
    <li className={`card catalog-item${s.opted_out ? ' muted-item' : ''}`} aria-label={`MCP server ${s.name}`}>
      <div className="catalog-head">
        <strong>{s.name}</strong>
        <span className={`scope scope-${s.scope ?? (admin ? 'tenant' : 'personal')}`}>{s.scope ?? (admin ? 'tenant' : 'personal')}</span>
        <span className="muted small">{s.transport === 'stdio' ? 'stdio' : 'HTTP'}</span>
        {s.trusted && <span className="small" title="Its tool annotations are honoured">trusted</span>}
        {s.opted_out ? <span className="muted small">opted out</span> : <HealthBadge base={base} name={s.name} />}
      </div>
      <p className="small"><code>{where(s)}</code></p>
      {!admin && !s.opted_out && s.transport === 'streamable_http' && <McpAuthorize id={s.id} name={s.name} />}
      <div className="row-buttons">
        <button type="button" className="link" aria-expanded={open} onClick={() => setOpen(!open)}>{open ? 'Hide tools' : 'Tools'}</button>
        {tenant && (
          <button type="button" className="link" disabled={busy} onClick={() => {
            void run(async () => { await api(`${base}/opt-out`, { method: 'PUT', json: { opted_out: !s.opted_out } }); refresh(); });
          }}>{s.opted_out ? 'Use it again' : 'Opt out'}</button>
        )}
        {(own || admin) && (confirm ? (
          <>
            <span className="small">Remove this server?</span>
            <button type="button" className="link danger" disabled={busy} onClick={() => { void run(async () => { await api(base, { method: 'DELETE' }); refresh(); }); }}>Yes, remove</button>
            <button type="button" className="link" onClick={() => setConfirm(false)}>Keep</button>
          </>
        ) : <button type="button" className="link danger" onClick={() => setConfirm(true)} aria-label={`Remove ${s.name}`}>Remove</button>)}
      </div>
      {open && <ServerTools id={s.id} name={s.name} adminBase={admin ? base : null} />}
      {error && <p className="error small" role="alert">{error}</p>}
    </li>
  );
}

function ServerList({ url, admin, me, label }: { url: string; admin: boolean; me: string | null; label: string }) {
  const q = useFreshQuery<unknown>(url);
  const items = listOf<McpServerView>(q.data);
  if (notAvailable(q.error)) return <p className="muted" role="status">MCP servers are not available on this server yet.</p>;
  return (
    <>
      {q.error && <p className="error" role="alert">Servers could not be loaded: {q.error.message}</p>}
      {!q.loading && !q.error && items.length === 0 && <div className="empty-box"><p className="muted">No servers yet.</p></div>}
      <ul className="catalog-list" aria-label={label}>
        {items.map((s) => <ServerCard key={`${s.id}-${s.updated_at ?? ''}-${String(s.opted_out)}`} s={s} admin={admin} me={me} />)}
      </ul>
    </>
  );
}

export default function McpPage() {
  const me = useQuery<ProfileView>('/v1/user/me');
  const isAdmin = me.data?.roles.includes('admin') ?? false;
  const meId = me.data?.id ?? null;
  return (
    <div className="page catalog-page">
      <h1>MCP servers</h1>
      <p className="muted">Tools from other systems, through the Model Context Protocol. An agent uses a server's tools when its settings allow it; each call asks for your approval first unless the policy says otherwise.</p>
      <div className="catalog-grid">
        <section aria-label="Your MCP servers">
          <h2>Available to you</h2>
          <ServerList url="/v1/user/mcp-servers" admin={false} me={meId} label="Your MCP servers" />
        </section>
        <RegisterServer admin={false} />
      </div>
      <UserPlugins />
      {isAdmin && (
        <div className="catalog-grid">
          <section aria-label="Tenant MCP servers">
            <h2>Tenant servers (admin)</h2>
            <ServerList url="/v1/admin/mcp-servers" admin me={meId} label="Tenant MCP servers" />
          </section>
          <RegisterServer admin />
        </div>
      )}
    </div>
  );
}
