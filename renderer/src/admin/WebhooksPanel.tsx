/**
 * Admin webhooks (issue 18 items 2 and 4; `/v1/admin/webhooks*`): the list, create (the secret is
 * shown once, right after create or rotate, with a copy button), rotate, delete, and each hook's
 * recent deliveries with their outcome. Senders' guide: docs/webhooks.md.
 */
import { useState, type FormEvent } from 'react';
import { api } from '../api/http';
import { useQuery } from '../api/cache';
import { Link } from '../app/Link';

type Target = { kind: 'notification'; user_id: string } | { kind: 'agent_run'; agent_id: string };
interface Hook { id: string; name: string; target: Target; owner_id: string; created_at: string; secret_set_at: string }
interface Delivery { id: string; received_at: string; outcome: 'accepted' | 'rejected'; code?: string; turn_id?: string; notification_id?: string }

const msg = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function targetText(t: Target): string {
  return t.kind === 'agent_run' ? `agent run: ${t.agent_id}` : `notify user: ${t.user_id}`;
}

/** The secret of the hook just created or rotated, shown this once. */
function SecretOnce({ id, secret, onDone }: { id: string; secret: string; onDone: () => void }) {
  return (
    <div className="card" role="status" data-testid="webhook-secret">
      <p><strong>Secret for {id}</strong> — copy it now; it is not shown again.</p>
      <code className="secret-once">{secret}</code>
      <div className="cell-actions">
        <button type="button" onClick={() => { void navigator.clipboard?.writeText(secret); }}>Copy</button>
        <button type="button" className="link" onClick={onDone}>Done</button>
      </div>
    </div>
  );
}

function Deliveries({ hookId }: { hookId: string }) {
  const q = useQuery<{ deliveries: Delivery[] }>(`/v1/admin/webhooks/${encodeURIComponent(hookId)}/deliveries`);
  if (q.error) return <p className="error">{q.error.message}</p>;
  const rows = q.data?.deliveries ?? [];
  return (
    <table className="table" aria-label={`Deliveries of ${hookId}`}>
      <thead><tr><th>Received</th><th>Outcome</th><th>Code</th><th>Result</th></tr></thead>
      <tbody>
        {rows.length === 0 && <tr><td colSpan={4} className="muted">No deliveries yet.</td></tr>}
        {rows.map((d) => (
          <tr key={d.id}>
            <td>{new Date(d.received_at).toLocaleString()}</td>
            <td><span className={`state state-${d.outcome === 'accepted' ? 'ready' : 'failed'}`}>{d.outcome}</span></td>
            <td>{d.code ?? '—'}</td>
            <td className="small">{d.turn_id ? <Link to={`/receipts/${d.turn_id}`}>turn {d.turn_id}</Link> : d.notification_id ? `notification ${d.notification_id}` : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The admin's webhooks tab. */
export function WebhooksPanel() {
  const list = useQuery<{ webhooks: Hook[] }>('/v1/admin/webhooks');
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Target['kind']>('agent_run');
  const [ref, setRef] = useState('default');
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async (fn: () => Promise<void>): Promise<void> => {
    setBusy(true); setError(null);
    try { await fn(); await list.refetch(); } catch (e) { setError(msg(e)); } finally { setBusy(false); }
  };
  const create = (e: FormEvent): void => {
    e.preventDefault();
    const target: Target = kind === 'agent_run' ? { kind, agent_id: ref.trim() } : { kind, user_id: ref.trim() };
    void run(async () => {
      const r = await api<Hook & { secret: string }>('/v1/admin/webhooks', { method: 'POST', json: { name: name.trim(), target } });
      setSecret({ id: r.id, secret: r.secret });
      setName('');
    });
  };
  const rotate = (id: string): void => { void run(async () => { setSecret(await api<{ id: string; secret: string }>(`/v1/admin/webhooks/${encodeURIComponent(id)}/rotate`, { method: 'POST' })); }); };
  const remove = (id: string): void => { void run(async () => { await api(`/v1/admin/webhooks/${encodeURIComponent(id)}`, { method: 'DELETE' }); if (open === id) setOpen(null); }); };

  const hooks = list.data?.webhooks ?? [];
  return (
    <div className="panel">
      <p className="muted">Senders sign each delivery with the hook's secret (HMAC-SHA256, see docs/webhooks.md) and post to <code>/v1/webhook/&#123;id&#125;</code>.</p>
      {secret && <SecretOnce id={secret.id} secret={secret.secret} onDone={() => setSecret(null)} />}
      <form className="card form-grid" onSubmit={create} aria-label="New webhook">
        <label>Name <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} /></label>
        <label>Target
          <select value={kind} onChange={(e) => { const k = e.target.value as Target['kind']; setKind(k); setRef(k === 'agent_run' ? 'default' : ''); }}>
            <option value="agent_run">Run an agent (as me)</option>
            <option value="notification">Notify a user</option>
          </select>
        </label>
        <label>{kind === 'agent_run' ? 'Agent id' : 'User id'} <input value={ref} onChange={(e) => setRef(e.target.value)} required /></label>
        <div className="cell-actions"><button type="submit" className="primary" disabled={busy || !name.trim() || !ref.trim()}>Create webhook</button></div>
      </form>
      {(error || list.error) && <p className="error" role="alert">{error ?? list.error?.message}</p>}
      <table className="table" aria-label="Webhooks">
        <thead><tr><th>Name</th><th>Id</th><th>Target</th><th>Secret set</th><th /></tr></thead>
        <tbody>
          {hooks.length === 0 && <tr><td colSpan={5} className="muted">No webhooks.</td></tr>}
          {hooks.map((h) => (
            <tr key={h.id}>
              <td>{h.name}</td><td><code>{h.id}</code></td><td>{targetText(h.target)}</td><td>{new Date(h.secret_set_at).toLocaleString()}</td>
              <td><div className="cell-actions">
                <button type="button" className="link" onClick={() => setOpen(open === h.id ? null : h.id)} aria-label={`Deliveries of ${h.name}`}>Deliveries</button>
                <button type="button" className="link" disabled={busy} onClick={() => rotate(h.id)} aria-label={`Rotate secret of ${h.name}`}>Rotate</button>
                <button type="button" className="link danger" disabled={busy} onClick={() => remove(h.id)} aria-label={`Delete ${h.name}`}>Delete</button>
              </div></td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && <><h2>Recent deliveries</h2><Deliveries hookId={open} /></>}
    </div>
  );
}
