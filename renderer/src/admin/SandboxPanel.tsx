/**
 * Admin → Sandbox (issue 12 items 5, 8, 9): what backs the code sandbox (runtime runsc/runc, Docker,
 * image, network, and the command that fixes it when it cannot run) and its live sessions
 * (`GET /v1/sandbox/sessions`: tenant, session, runtime, state, age, idle, memory) with a Destroy
 * button (`DELETE /v1/sandbox/sessions/{tenant_id}/{session_id}`, confirmed first). Refreshed every
 * 5 s while shown and the window is visible.
 *
 * The readiness comes with the session list (`SessionList.readiness`, also when the sandbox is not
 * ready). `GET /v1/admin/status` carries only each service's state, not its `/readyz` fields, so when
 * the list itself fails the panel asks the sandbox's `/readyz` (through the gateway) for the reason.
 */
import { useEffect, useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { SandboxReadiness, SandboxSessionInfo, SandboxSessionList } from '../api/types';
import { useAction } from '../app/use-action';
import { fixOf, formatSeconds, memoryText, readinessOf, readinessRows, sandboxReady } from './sandbox-view';

const SESSIONS = '/v1/sandbox/sessions';
const READYZ = '/v1/sandbox/readyz';
const REFRESH_MS = 5000;

/** The command that fixes the sandbox, with a Copy button. */
function Fix({ command }: { command: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async (): Promise<void> => {
    try { await navigator.clipboard.writeText(command); setCopied(true); setTimeout(() => setCopied(false), 1500); } catch { /* no clipboard: the text is selectable */ }
  };
  return (
    <div className="sandbox-fix">
      <span className="label-like">To fix, run:</span>
      <code data-testid="sandbox-fix">{command}</code>
      <button type="button" className="link" onClick={() => { void copy(); }} aria-label={`Copy the command ${command}`}>{copied ? 'Copied' : 'Copy'}</button>
    </div>
  );
}

/** The readiness card. */
function Readiness({ r, warm, max, live }: { r: Partial<SandboxReadiness>; warm: number | null; max: number | null; live: number | null }) {
  const ready = sandboxReady(r);
  const fix = fixOf(r, null);
  return (
    <section className={`card sandbox-readiness ${ready ? 'ok' : 'bad'}`} aria-label="Sandbox readiness" data-testid="sandbox-readiness" data-ready={ready}>
      <h2>{ready ? 'The sandbox is ready' : 'The sandbox cannot run code'}</h2>
      <dl className="facts">
        {readinessRows(r).map((row) => (
          <div key={row.label} className="fact"><dt>{row.label}</dt><dd className={row.ok === true ? 'ok' : row.ok === false ? 'error' : undefined}>{row.value}</dd></div>
        ))}
        {live !== null && max !== null && <div className="fact"><dt>Sessions</dt><dd>{live} of at most {max}</dd></div>}
        {warm !== null && <div className="fact"><dt>Warm pool</dt><dd>{warm} ready container{warm === 1 ? '' : 's'}</dd></div>}
      </dl>
      {!ready && fix && <Fix command={fix} />}
      {!ready && <p className="muted small">While the sandbox cannot run, the code tools are not offered to the assistant; chat goes on without them.</p>}
    </section>
  );
}

/** One live session with its Destroy button (confirmed first). */
function SessionRow({ s }: { s: SandboxSessionInfo }) {
  const [confirming, setConfirming] = useState(false);
  const act = useAction();
  const destroy = async (): Promise<void> => {
    await act.run(async () => {
      try {
        await api(`${SESSIONS}/${encodeURIComponent(s.tenant_id)}/${encodeURIComponent(s.session_id)}`, { method: 'DELETE' });
      } catch (e) {
        // Gone meanwhile (idle cleanup, another admin): the list refresh shows it.
        if (!(e instanceof ApiError && e.code === 'session_not_found')) throw e;
      }
      invalidate(SESSIONS);
    });
    setConfirming(false);
  };
  const used = s.memory_bytes;
  return (
    <tr data-testid="sandbox-session-row" data-session={s.session_id} data-state={s.state}>
      <td>{s.tenant_id}</td>
      <td><code className="small" title={`container ${s.container_id}`}>{s.session_id}</code></td>
      <td>{s.runtime}</td>
      <td><span className={`state state-${s.state}`}>{s.state}</span></td>
      <td className="num" title={new Date(s.created_at).toLocaleString()}>{formatSeconds(s.age_seconds)}</td>
      <td className="num" title={`last used ${new Date(s.last_used_at).toLocaleString()}`}>{formatSeconds(s.idle_seconds)}</td>
      <td className="nowrap">
        {used !== null && s.memory_limit_bytes > 0 && <meter min={0} max={s.memory_limit_bytes} value={used} high={s.memory_limit_bytes * 0.85} aria-label={`Memory of ${s.session_id}`} />}
        {' '}<span className="small">{memoryText(used, s.memory_limit_bytes)}</span>
      </td>
      <td><div className="cell-actions">
        {confirming ? (
          <>
            <span className="small">Destroy{s.state === 'busy' ? ' (a run is in progress)' : ''}?</span>
            <button type="button" className="link danger" data-testid="sandbox-destroy-confirm" disabled={act.busy} onClick={() => { void destroy(); }} aria-label={`Confirm destroy session ${s.session_id}`}>Destroy</button>
            <button type="button" className="link" onClick={() => setConfirming(false)}>Cancel</button>
          </>
        ) : (
          <button type="button" className="link danger" data-testid="sandbox-destroy" onClick={() => setConfirming(true)} aria-label={`Destroy session ${s.session_id}`}>Destroy</button>
        )}
      </div>{act.error && <div className="error small" role="alert">{act.error}</div>}</td>
    </tr>
  );
}

export function SandboxPanel() {
  const list = useQuery<SandboxSessionList>(SESSIONS);
  const failed = list.error !== null;
  // Only when the list fails: why, from the sandbox's own readiness probe.
  const probe = useQuery<Record<string, unknown>>(failed ? READYZ : null);
  const { refetch } = list;
  const { refetch: reprobe } = probe;

  useEffect(() => {
    const tick = (): void => {
      if (document.visibilityState !== 'visible') return;
      void refetch();
      if (failed) void reprobe();
    };
    const t = setInterval(tick, REFRESH_MS);
    document.addEventListener('visibilitychange', tick);
    return () => { clearInterval(t); document.removeEventListener('visibilitychange', tick); };
  }, [refetch, reprobe, failed]);

  const data = list.data;
  const sessions = data?.sessions ?? [];
  const err = list.error instanceof ApiError ? list.error : null;
  const probed = readinessOf(probe.data);
  const probeReason = probe.error?.message ?? null;
  const fix = failed ? fixOf(probed, err?.code ?? null) : null;

  return (
    <div className="panel sandbox-panel">
      {failed && (
        <div className="notice error sandbox-down" role="alert" data-testid="sandbox-unavailable">
          <p><strong>The sandbox is unavailable.</strong> {list.error!.message}{err?.code ? ` (${err.code})` : ''}</p>
          {probeReason && probeReason !== list.error!.message && <p>Readiness: {probeReason}</p>}
          {err && (err.status === 502 || err.status === 503 || err.status === 0) && !probed && <p className="small">Check Admin → Services for the sandbox service's state.</p>}
          {fix && <Fix command={fix} />}
        </div>
      )}
      {data ? <Readiness r={data.readiness} warm={data.warm} max={data.max_sessions} live={sessions.length} /> : probed && <Readiness r={probed} warm={null} max={null} live={null} />}
      <section className="sandbox-sessions" aria-label="Live sandbox sessions" data-testid="sandbox-sessions">
        <h2>Live sessions</h2>
        {failed && data && <p className="muted small">Last answer at {new Date(list.updatedAt).toLocaleTimeString()}.</p>}
        {!data && list.loading && <p className="muted">Loading…</p>}
        {!data && failed && !list.loading && <p className="muted">Unknown while the sandbox does not answer.</p>}
        {data && sessions.length === 0 && (
          <div className="empty-box" data-testid="sandbox-empty"><p>No live sessions.</p><p className="muted small">A chat's first code run starts one; idle sessions are removed after the idle timeout.</p></div>
        )}
        {sessions.length > 0 && (
          <table className="table">
            <thead><tr><th>Tenant</th><th>Session</th><th>Runtime</th><th>State</th><th className="num">Age</th><th className="num">Idle</th><th>Memory</th><th><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>{sessions.map((s) => <SessionRow key={`${s.tenant_id}/${s.session_id}`} s={s} />)}</tbody>
          </table>
        )}
      </section>
    </div>
  );
}
