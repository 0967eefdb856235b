/**
 * Admin → Policies → the guardrail's learned layers (issue 16 item 1; `GET /v1/guard/status`):
 * whether the trained n-gram classifier and the imported encoder classifier run, which file (version
 * and sha256) and, when one does not, why and how to install it. Without them the other layers
 * carry on; this says so.
 */
import { useQuery } from '../api/cache';
import type { GuardStatus } from '../api/types';

const STATE_TEXT: Record<string, string> = {
  ready: 'running', loading: 'loading', unavailable: 'not installed', failed: 'failed to load', off: 'turned off',
};

/** The first 12 hex digits of a sha256, or a dash. */
const short = (h: string | null): string => (h ? `${h.slice(0, 12)}…` : '—');

export function GuardLayers() {
  const q = useQuery<GuardStatus>('/v1/guard/status');
  const s = q.data;
  if (q.error) return <p className="notice error" role="alert">Learned layers: {q.error.message}</p>;
  if (!s) return null;
  const n = s.ngram_classifier;
  const e = s.encoder_classifier;
  return (
    <div data-testid="guard-layers">
      <h3>Learned layers</h3>
      <table className="table">
        <thead><tr><th>Layer</th><th>State</th><th>Model</th><th>sha256</th></tr></thead>
        <tbody>
          <tr data-testid="guard-layer" data-layer="ngram_classifier" data-state={n.state}>
            <td>Trained n-gram classifier (ships with the app)</td><td>{STATE_TEXT[n.state] ?? n.state}</td>
            <td><code>{n.version ?? n.model ?? '—'}</code></td><td><code title={n.sha256 ?? ''}>{short(n.sha256)}</code></td>
          </tr>
          <tr data-testid="guard-layer" data-layer="encoder_classifier" data-state={e.state}>
            <td>Imported encoder classifier (optional)</td><td>{STATE_TEXT[e.state] ?? e.state}</td>
            <td><code>{e.model}</code></td><td><code title={e.sha256 ?? ''}>{short(e.sha256)}</code></td>
          </tr>
        </tbody>
      </table>
      {n.state !== 'ready' && n.reason && <p className="small muted">n-gram classifier: {n.reason}</p>}
      {e.state !== 'ready' && (
        <p className="small muted">
          {e.reason ? `Encoder classifier: ${e.reason}. ` : ''}The rule and n-gram layers decide without it. To add it on an air-gapped
          machine: <code>npm run models:import -- --guard &lt;folder&gt;</code> (its hashes are recorded); on a connected one:{' '}
          <code>npm run models:fetch -- --guard --pin &lt;file&gt;=&lt;sha256&gt; …</code>.
        </p>
      )}
    </div>
  );
}
