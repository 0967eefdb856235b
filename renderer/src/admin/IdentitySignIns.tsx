/**
 * Admin → Identity, who signed in how (issue 15 item 5): `GET /v1/admin/auth/sign-ins?limit&cursor`
 * as a table (newest first, "Older" pages on), and the sign-ins per method over the counted period
 * as a small bar chart.
 */
import { useState } from 'react';
import { useQuery } from '../api/cache';
import type { SignInPage } from '../api/types';

const BASE = '/v1/admin/auth/sign-ins?limit=50';

const METHOD_LABELS: Readonly<Record<string, string>> = {
  password: 'Password', directory: 'Directory', upstream_oidc: 'Upstream SSO',
  mobile: 'Phone pairing', installer_handoff: 'Installer handoff',
};

/** Sign-ins per method, one horizontal bar each. */
export function SignInMethodChart({ counts }: { counts: SignInPage['counts'] }) {
  const max = Math.max(1, ...counts.map((c) => c.count));
  const row = 22;
  const width = 520;
  const label = 150;
  const height = Math.max(1, counts.length) * row + 8;
  return (
    <svg className="chart" data-testid="sign-in-chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Sign-ins per method">
      {counts.length === 0 && <text x={8} y={18} className="tick">No sign-ins yet.</text>}
      {counts.map((c, i) => {
        const w = (c.count / max) * (width - label - 50);
        return (
          <g key={c.method} data-method={c.method} data-count={c.count}>
            <text x={label - 6} y={i * row + 19} className="tick" textAnchor="end">{METHOD_LABELS[c.method] ?? c.method}</text>
            <rect x={label} y={i * row + 6} width={Math.max(w, 1)} height={row - 8} className="bar"><title>{`${c.method}: ${c.count}`}</title></rect>
            <text x={label + w + 6} y={i * row + 19} className="tick">{c.count}</text>
          </g>
        );
      })}
    </svg>
  );
}

/** The sign-in log card. */
export function IdentitySignIns() {
  const [cursor, setCursor] = useState<string | null>(null);
  const q = useQuery<SignInPage>(cursor ? `${BASE}&cursor=${encodeURIComponent(cursor)}` : BASE);
  const p = q.data;
  return (
    <section className="card" data-testid="identity-sign-ins" aria-label="Sign-ins">
      <h3>Who signed in how</h3>
      {q.error && <p className="error" role="alert">{q.error.message}</p>}
      {p && <p className="small muted">Since {new Date(p.counts_since).toLocaleDateString()}:</p>}
      {p && <SignInMethodChart counts={p.counts} />}
      <table className="table" aria-label="Sign-in log">
        <thead><tr><th>Time</th><th>User</th><th>Method</th><th>Second factor</th><th>Issuer / client</th><th>From</th></tr></thead>
        <tbody>
          {(p?.items ?? []).map((r) => (
            <tr key={r.id} data-testid="sign-in-row" data-method={r.method} data-email={r.email ?? ''}>
              <td>{new Date(r.at).toLocaleString()}</td>
              <td>{r.email ?? r.user_id}</td>
              <td>{METHOD_LABELS[r.method] ?? r.method}</td>
              <td>{r.second_factor ?? '—'}</td>
              <td className="small">{[r.issuer, r.client_id].filter(Boolean).join(' · ') || '—'}</td>
              <td className="small">{r.client_ip ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {p && !p.items.length && <p className="muted">No sign-ins recorded.</p>}
      <div className="row-buttons">
        {cursor && <button type="button" className="link" onClick={() => setCursor(null)}>Newest</button>}
        {p?.next_cursor && <button type="button" className="link" onClick={() => setCursor(p.next_cursor ?? null)}>Older</button>}
      </div>
    </section>
  );
}
