/**
 * Service controls (issue 19 item 1), under the status table of the Services tab: restart a
 * service, set its log level, and read the tail of its log (secrets redacted by the workstation).
 */
import { useState } from 'react';
import { useQuery } from '../api/cache';
import { api } from '../api/http';
import type { StatusView } from '../api/types';
import { useAction } from '../app/use-action';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function ServicesPanel() {
  const st = useQuery<StatusView>('/v1/admin/status');
  const [name, setName] = useState('agent-runtime');
  const [level, setLevel] = useState<string>('info');
  const [lines, setLines] = useState<string[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const act = useAction<'restart' | 'level' | 'logs'>();
  const restart = () => act.run(async () => { await api(`/v1/admin/services/${name}/restart`, { method: 'POST' }); setNote(`${name} restarted`); await st.refetch(); }, 'restart');
  const apply = () => act.run(async () => { await api(`/v1/admin/services/${name}/log-level`, { method: 'PUT', json: { level } }); setNote(`${name} logs at ${level}`); }, 'level');
  const tail = () => act.run(async () => { setLines((await api<{ lines: string[] }>(`/v1/admin/services/${name}/logs?lines=200`)).lines); }, 'logs');
  return (
    <section className="card" data-testid="services-controls" aria-label="Service controls">
      <h3>Controls</h3>
      <label>Service <select value={name} onChange={(e) => { setName(e.target.value); setLines(null); }}>
        {(st.data?.services ?? []).map((s) => <option key={s.name} value={s.name}>{s.name}</option>)}
      </select></label>
      <button type="button" disabled={act.busy || name === 'gateway'} onClick={() => { void restart(); }}>{act.pending === 'restart' ? 'Restarting…' : 'Restart'}</button>
      <label>Log level <select value={level} onChange={(e) => setLevel(e.target.value)}>{LEVELS.map((l) => <option key={l}>{l}</option>)}</select></label>
      <button type="button" disabled={act.busy} onClick={() => { void apply(); }}>Apply</button>
      <button type="button" disabled={act.busy} onClick={() => { void tail(); }}>Show log tail</button>
      {note && <p className="muted" role="status">{note}</p>}
      {act.error && <p className="error small" role="alert">{act.error}</p>}
      {lines && <pre className="log-tail" data-testid="log-tail">{lines.length ? lines.join('\n') : '(empty)'}</pre>}
    </section>
  );
}
