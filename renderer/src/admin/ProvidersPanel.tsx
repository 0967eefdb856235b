/**
 * Inference providers and model roles (`/v1/admin/inference/*`). Adding a provider runs the
 * router's probe (`GET {base_url}/models`); the answer (models found, or why it failed, e.g. a
 * redirect) is shown as is.
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import { MODEL_ROLES, type AdapterKind, type Page, type ProviderList, type ProviderView, type RoleView } from '../api/types';
import { useAction } from '../app/use-action';

const modelIds = (p: Pick<ProviderView, 'models'>): string[] => p.models ?? [];

/** The probe's refusal with its code (e.g. `provider_redirect`). */
const probeError = (err: unknown): string => (err instanceof ApiError ? `${err.message}${err.code ? ` (${err.code})` : ''}` : String(err));

function AddProvider() {
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [adapter, setAdapter] = useState<AdapterKind>('chat_completions');
  const [apiKey, setApiKey] = useState('');
  const probe = useAction(probeError);
  const [added, setAdded] = useState<ProviderView | null>(null);
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setAdded(null);
    await probe.run(async () => {
      const p = await api<ProviderView>('/v1/admin/inference/providers', { method: 'POST', json: { name: name.trim(), base_url: baseUrl.trim(), adapter, ...(apiKey ? { api_key: apiKey } : {}) } });
      setAdded(p);
      setName(''); setBaseUrl(''); setApiKey('');
      invalidate('/v1/admin/inference');
    });
  };
  return (
    <form className="card form-grid" onSubmit={(e) => { void submit(e); }} aria-label="Add a provider">
      <h3>Add a provider</h3>
      <label htmlFor="pv-name">Name</label>
      <input id="pv-name" value={name} onChange={(e) => setName(e.target.value)} required placeholder="ollama" />
      <label htmlFor="pv-url">Base URL</label>
      <input id="pv-url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required placeholder="http://127.0.0.1:11434/v1" />
      <label htmlFor="pv-adapter">Adapter</label>
      <select id="pv-adapter" value={adapter} onChange={(e) => setAdapter(e.target.value as typeof adapter)}>
        <option value="chat_completions">Chat Completions</option>
        <option value="responses">Responses</option>
      </select>
      <label htmlFor="pv-key">API key (optional)</label>
      <input id="pv-key" type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
      <div />
      <button type="submit" className="primary" disabled={probe.busy || !name.trim() || !baseUrl.trim()}>{probe.busy ? 'Probing…' : 'Add provider'}</button>
      {added && <p className="ok probe" role="status">Probe succeeded: {added.name} offers {modelIds(added).length} model{modelIds(added).length === 1 ? '' : 's'} ({modelIds(added).slice(0, 8).join(', ') || 'none listed'}).</p>}
      {probe.error !== null && <p className="error probe" role="alert">Probe failed: {probe.error}</p>}
    </form>
  );
}

function RoleRow({ role, current, providers }: { role: string; current: RoleView | undefined; providers: ProviderView[] }) {
  const [pid, setPid] = useState(current?.targets[0]?.provider_id ?? '');
  const [model, setModel] = useState(current?.targets[0]?.model ?? '');
  const [state, setState] = useState<string | null>(null);
  const models = modelIds(providers.find((p) => p.id === pid) ?? { models: [] });
  const save = async (): Promise<void> => {
    setState('Saving…');
    try {
      await api(`/v1/admin/inference/roles/${encodeURIComponent(role)}`, { method: 'PUT', json: { provider_id: pid, model } });
      setState('Saved');
      invalidate('/v1/admin/inference/roles');
    } catch (e) { setState(e instanceof Error ? e.message : String(e)); }
  };
  return (
    <tr>
      <th scope="row">{role}</th>
      <td>
        <select aria-label={`Provider for ${role}`} value={pid} onChange={(e) => { setPid(e.target.value); setModel(''); }}>
          <option value="">—</option>
          {providers.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
      </td>
      <td>
        <select aria-label={`Model for ${role}`} value={model} onChange={(e) => setModel(e.target.value)} disabled={!pid}>
          <option value="">—</option>
          {models.map((m) => <option key={m} value={m}>{m}</option>)}
          {model && !models.includes(model) && <option value={model}>{model}</option>}
        </select>
      </td>
      <td><button type="button" disabled={!pid || !model} onClick={() => { void save(); }}>Set</button> <span className="small muted" role="status">{state}</span></td>
    </tr>
  );
}

export function ProvidersPanel() {
  const providers = useQuery<ProviderList>('/v1/admin/inference/providers');
  const roles = useQuery<Page<RoleView>>('/v1/admin/inference/roles');
  const pv = providers.data?.items ?? [];
  const rl = roles.data?.items ?? [];
  return (
    <div className="panel">
      <AddProvider />
      <h2>Providers</h2>
      {providers.error && <p className="error">{providers.error.message}</p>}
      {!providers.loading && !providers.error && pv.length === 0 && <p className="muted">No provider yet. Add one above; the router probes it before saving.</p>}
      {pv.length > 0 && (
        <table className="table">
          <thead><tr><th>Name</th><th>Base URL</th><th>Adapter</th><th>Models</th></tr></thead>
          <tbody>{pv.map((p) => <tr key={p.id}><td>{p.name}</td><td><code>{p.base_url}</code></td><td>{p.adapter}</td><td>{modelIds(p).join(', ') || '—'}</td></tr>)}</tbody>
        </table>
      )}
      <h2>Model roles</h2>
      {roles.error && <p className="error">{roles.error.message}</p>}
      <table className="table roles">
        <thead><tr><th>Role</th><th>Provider</th><th>Model</th><th /></tr></thead>
        <tbody>
          {/* Rows remount once the roles arrive (initial values), not after each save (that would drop "Saved"). */}
          {[...new Set([...MODEL_ROLES, ...rl.map((r) => r.role)])].map((role) => (
            <RoleRow key={`${role}:${roles.data ? 1 : 0}:${pv.length}`} role={role} current={rl.find((r) => r.role === role)} providers={pv} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
