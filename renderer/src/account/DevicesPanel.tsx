/**
 * The user's paired phones (issue 14 item 6; `GET /v1/account/devices`): name, when paired, last seen,
 * state; rename (`PATCH`) and revoke (`DELETE`, confirmed inline: a revoked phone can no longer
 * approve sign-ins nor refresh its tokens).
 */
import { useState, type FormEvent } from 'react';
import { api } from '../api/http';
import { invalidate, useQuery } from '../api/cache';
import type { DeviceList, DeviceView } from '../api/types';
import { useAction } from '../app/use-action';

export const DEVICES = '/v1/account/devices';

const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : 'never');

function DeviceRow({ d }: { d: DeviceView }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(d.name);
  const [confirm, setConfirm] = useState(false);
  const act = useAction<'rename' | 'revoke'>();
  const rename = (e: FormEvent): void => {
    e.preventDefault();
    void act.run(async () => {
      await api(`${DEVICES}/${encodeURIComponent(d.id)}`, { method: 'PATCH', json: { name: name.trim() } });
      setEditing(false);
      invalidate(DEVICES);
    }, 'rename');
  };
  const revoke = (): void => {
    void act.run(async () => {
      await api(`${DEVICES}/${encodeURIComponent(d.id)}`, { method: 'DELETE' });
      setConfirm(false);
      invalidate(DEVICES);
    }, 'revoke');
  };
  return (
    <tr data-testid="device-row" data-device-id={d.id} data-state={d.state}>
      <td>
        {editing ? (
          <form className="inline-form" onSubmit={rename}>
            <input aria-label="Device name" value={name} maxLength={64} onChange={(e) => setName(e.target.value)} autoFocus />
            <button type="submit" className="primary" disabled={act.busy || !name.trim()}>Save</button>
            <button type="button" className="link" onClick={() => { setEditing(false); setName(d.name); }}>Cancel</button>
          </form>
        ) : d.name}
      </td>
      <td>{when(d.created_at)}</td>
      <td>{when(d.last_seen_at)}</td>
      <td>{d.state === 'revoked' ? <span className="error">revoked {d.revoked_at ? new Date(d.revoked_at).toLocaleDateString() : ''}</span> : 'paired'}</td>
      <td className="row-buttons">
        {d.state === 'paired' && !editing && !confirm && (
          <>
            <button type="button" className="link" onClick={() => setEditing(true)}>Rename</button>
            <button type="button" className="link" onClick={() => setConfirm(true)}>Revoke</button>
          </>
        )}
        {confirm && (
          <>
            <span className="small">Revoke {d.name}? It can no longer approve sign-ins.</span>
            <button type="button" className="danger" disabled={act.busy} onClick={revoke}>Yes, revoke</button>
            <button type="button" className="link" onClick={() => setConfirm(false)}>Keep</button>
          </>
        )}
        {act.error && <span className="error small" role="alert">{act.error}</span>}
      </td>
    </tr>
  );
}

export function DevicesPanel() {
  const q = useQuery<DeviceList>(DEVICES);
  const items = q.data?.items ?? [];
  return (
    <section className="card" aria-labelledby="devices-title">
      <h2 id="devices-title">Your phones</h2>
      {q.data?.enforced && <p className="notice info small">Your administrator requires a paired phone for signing in.</p>}
      {q.error && <p className="error" role="alert">{q.error.message}</p>}
      {!q.error && items.length === 0 && !q.loading && <p className="muted">No phone is paired yet: signing in needs only your password.</p>}
      {items.length > 0 && (
        <table className="table" data-testid="devices">
          <thead><tr><th>Name</th><th>Paired</th><th>Last seen</th><th>State</th><th /></tr></thead>
          <tbody>{items.map((d) => <DeviceRow key={`${d.id}:${d.name}:${d.state}`} d={d} />)}</tbody>
        </table>
      )}
    </section>
  );
}
