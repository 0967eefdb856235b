/**
 * Admin → Policies (issue 13 item 8; `GET /v1/admin/policies`): tool and guardrail policies in one
 * place. Tools: each tool's policy (auto / ask / deny) for the tenant, set or reset through
 * `/v1/admin/policies/tools/{tool}`. Guardrail: each scanner's action on input and output and its
 * threshold, as the guardrail enforces them; an override (JSON, merged by the guardrail, which
 * validates it) through `PUT /v1/admin/policies/guardrail`, reset with `DELETE`; above them, which
 * learned layers run (GuardLayers.tsx).
 */
import { useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { PoliciesSummary } from '../api/types';
import { useAction } from '../app/use-action';
import { GuardLayers } from './GuardLayers';

const POLICIES_URL = '/v1/admin/policies';

type GuardView = { policy?: Record<string, Record<string, unknown>>; overrides?: { tenant?: unknown; agent?: unknown } };

function ToolRow({ name, source, def, rule }: { name: string; source: string; def: string; rule: string | null }) {
  const act = useAction();
  const set = async (value: string): Promise<void> => {
    await act.run(async () => {
      const path = `${POLICIES_URL}/tools/${encodeURIComponent(name)}`;
      if (value === '') await api(path, { method: 'DELETE' });
      else await api(path, { method: 'PUT', json: { policy: value } });
      invalidate(POLICIES_URL);
    });
  };
  return (
    <tr data-testid="policy-tool-row" data-tool={name}>
      <td><code>{name}</code></td><td className="small muted">{source}</td>
      <td>
        <select aria-label={`Policy of ${name}`} value={rule ?? ''} disabled={act.busy} onChange={(e) => { void set(e.target.value); }}>
          <option value="">default ({def})</option><option value="auto">auto: run</option><option value="ask">ask: approval first</option><option value="deny">deny: never</option>
        </select>
        {act.error && <div className="error small" role="alert">{act.error}</div>}
      </td>
    </tr>
  );
}

function GuardrailSection({ g }: { g: PoliciesSummary['guardrail'] }) {
  const view = (g.policy ?? {}) as GuardView;
  const [text, setText] = useState('');
  const act = useAction();
  const save = async (): Promise<void> => {
    const ok = await act.run(async () => {
      let policy: unknown;
      try { policy = JSON.parse(text); } catch { throw new Error('The override must be JSON, e.g. {"pii": {"threshold": 0.8}}'); }
      await api(`${POLICIES_URL}/guardrail`, { method: 'PUT', json: { policy } });
      invalidate(POLICIES_URL);
    });
    if (ok) setText('');
  };
  const reset = async (): Promise<void> => { await act.run(async () => { await api(`${POLICIES_URL}/guardrail`, { method: 'DELETE' }); invalidate(POLICIES_URL); }); };
  if (g.state !== 'ok') return <p className="notice warn" role="status">The guardrail did not answer{g.error ? `: ${g.error}` : ''}.</p>;
  const scanners = Object.entries(view.policy ?? {}).filter(([, v]) => v && typeof v === 'object');
  return (
    <>
      <table className="table" data-testid="guardrail-policy">
        <thead><tr><th>Scanner</th><th>Input</th><th>Output</th><th className="num">Threshold</th></tr></thead>
        <tbody>
          {scanners.map(([name, s]) => (
            <tr key={name}>
              <td>{name.replace(/_/g, ' ')}</td>
              <td>{typeof s.input === 'string' ? s.input : typeof s.mode === 'string' ? `mode ${s.mode}` : '—'}</td>
              <td>{typeof s.output === 'string' ? s.output : '—'}</td>
              <td className="num">{typeof s.threshold === 'number' ? s.threshold : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small muted">{view.overrides?.tenant ? 'The tenant has an override of the defaults.' : 'Defaults (no tenant override).'}</p>
      <label htmlFor="guard-override" className="small">Override (JSON, merged into the tenant&apos;s policy)</label>
      <textarea id="guard-override" rows={3} value={text} onChange={(e) => setText(e.target.value)} placeholder='{"pii": {"input": "redact", "threshold": 0.8}}' />
      <div className="cell-actions">
        <button type="button" className="primary" disabled={act.busy || !text.trim()} onClick={() => { void save(); }}>Apply override</button>
        <button type="button" className="link" disabled={act.busy || !view.overrides?.tenant} onClick={() => { void reset(); }}>Reset to defaults</button>
      </div>
      {act.error && <p className="error" role="alert">{act.error}</p>}
    </>
  );
}

export function PoliciesPanel() {
  const q = useQuery<PoliciesSummary>(POLICIES_URL);
  const v = q.data;
  const ruleOf = (tool: string): string | null => v?.tools.items.find((r) => r.tool === tool && r.origin === 'admin' && !r.agent_id)?.policy ?? null;
  return (
    <div className="panel policies-panel" data-testid="policies">
      {q.error && <p className="notice error" role="alert">{q.error.message}</p>}
      {v && (
        <>
          <h2>Tools</h2>
          <p className="small muted">Whether a tool runs at once, asks the user first, or never runs, for every agent of the tenant.</p>
          <table className="table">
            <thead><tr><th>Tool</th><th>Source</th><th>Policy</th></tr></thead>
            <tbody>{v.tools.tools.map((t) => <ToolRow key={t.name} name={t.name} source={t.source} def={t.default_policy} rule={ruleOf(t.name)} />)}</tbody>
          </table>
          {v.tools.items.some((r) => r.origin === 'config') && (
            <p className="small muted">Rules from AGENT_RUNTIME_TOOL_POLICY: {v.tools.items.filter((r) => r.origin === 'config').map((r) => `${r.tool} ${r.policy}`).join(', ')}.</p>
          )}
          <h2>Guardrail</h2>
          <GuardLayers />
          <GuardrailSection g={v.guardrail} />
        </>
      )}
    </div>
  );
}
