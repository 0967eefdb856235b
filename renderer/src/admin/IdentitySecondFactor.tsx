/**
 * Admin → Identity, second factor (issue 14 items 3 and 6, issue 15 item 5): whether a paired phone
 * is required of non-admin users (`GET`/`PUT /v1/admin/users/second-factor`; `SVC_2FA_ENFORCED` is
 * the default, the admin's setting overrides it; admins are never force-enrolled), and each user's
 * phones (`GET /v1/admin/users/{id}/devices`, revoke with `DELETE .../devices/{device_id}`).
 *
 * Landed from the parked draft with two fixes: the switch is always rendered (disabled until the
 * policy loads) instead of appearing only once it has, and it shows the value being saved at once
 * (the draft's controlled checkbox snapped back to the old value until the server answered, so a
 * click "did not change its state"); the PUT's answer is put in the cache, no refetch needed.
 */
import { useState } from 'react';
import { invalidate, prime, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { DeviceList, SecondFactorPolicy, UserPage } from '../api/types';
import { useAction } from '../app/use-action';

const POLICY_URL = '/v1/admin/users/second-factor';

/** The enforcement switch. */
export function SecondFactorPolicySwitch() {
  const q = useQuery<SecondFactorPolicy>(POLICY_URL);
  const act = useAction();
  const [saving, setSaving] = useState<boolean | null>(null);
  const p = q.data;
  const shown = saving ?? p?.enforced ?? false;
  const set = async (enforced: boolean): Promise<void> => {
    setSaving(enforced);
    await act.run(async () => { prime(POLICY_URL, await api<SecondFactorPolicy>(POLICY_URL, { method: 'PUT', json: { enforced } })); });
    setSaving(null);
  };
  return (
    <section className="card" data-testid="second-factor-policy" data-enforced={p ? String(p.enforced) : ''} aria-label="Second factor">
      <h3>Second factor</h3>
      {q.error && <p className="error" role="alert">{q.error.message}</p>}
      <label>
        <input type="checkbox" checked={shown} disabled={!p || act.busy} onChange={(e) => { void set(e.target.checked); }} />{' '}
        Require a paired phone for every user who is not an admin
      </label>
      <p className="small muted">
        {p ? (p.source === 'env' ? 'Set by SVC_2FA_ENFORCED until you change it here. ' : 'Set here (overrides SVC_2FA_ENFORCED). ') : 'Loading… '}
        Users without a phone are asked to pair one at their next sign-in; admins are never forced.
      </p>
      {act.error && <p className="error small" role="alert">{act.error}</p>}
    </section>
  );
}

/** One user's phones, with revoke. */
export function UserDevices({ userId }: { userId: string }) {
  const url = `/v1/admin/users/${encodeURIComponent(userId)}/devices`;
  const q = useQuery<DeviceList>(url);
  const act = useAction();
  const revoke = async (id: string): Promise<void> => {
    await act.run(async () => { await api(`${url}/${encodeURIComponent(id)}`, { method: 'DELETE' }); invalidate(url); });
  };
  const paired = (q.data?.items ?? []).filter((d) => d.state === 'paired');
  return (
    <div data-testid="user-devices" data-user={userId}>
      {q.error && <span className="error small">{q.error.message}</span>}
      {q.data && !paired.length && <span className="small muted">No paired phone.</span>}
      {paired.map((d) => (
        <span key={d.id} className="small" data-testid="user-device">
          {d.name} (last seen {d.last_seen_at ? new Date(d.last_seen_at).toLocaleString() : 'never'}){' '}
          <button type="button" className="link" disabled={act.busy} onClick={() => { void revoke(d.id); }}>Revoke {d.name}</button>
        </span>
      ))}
      {act.error && <span className="error small" role="alert">{act.error}</span>}
    </div>
  );
}

/** The switch and every user's phones. */
export function IdentitySecondFactor() {
  const users = useQuery<UserPage>('/v1/admin/users?limit=500');
  return (
    <div className="panel" data-testid="identity-second-factor">
      <SecondFactorPolicySwitch />
      {users.error && <p className="error">{users.error.message}</p>}
      <table className="table" aria-label="Phones per user">
        <thead><tr><th>User</th><th>Phones</th></tr></thead>
        <tbody>
          {(users.data?.items ?? []).map((u) => (
            <tr key={u.id}><td>{u.email}</td><td><UserDevices userId={u.id} /></td></tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
