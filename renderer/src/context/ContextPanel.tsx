/**
 * "Why this answer" (issue 13 item 5): a side panel over the chat showing what the turn put in front
 * of the model (`GET /v1/context/turns/{turn_id}`): the tokens of each part as a bar chart, the
 * memories and knowledge chunks with their scores, the history kept or dropped by the context
 * budget, and the steps of the turn as a timeline. Opened from an assistant message.
 */
import { useEffect, useMemo, useRef } from 'react';
import { api, ApiError } from '../api/http';
import { useQuery } from '../api/cache';
import type { ContextPart, ContextRecord } from '../api/types';
import { Link } from '../app/Link';
import { formatMs, formatScore, partLabel, sourceParts, timeline, tokenBars } from './context-view';

/** How long to wait before asking again when the record is not written yet (the answer's last event can beat it), ms. */
const RETRY_MS = 500;

async function loadRecord(turnId: string): Promise<ContextRecord> {
  const url = `/v1/context/turns/${encodeURIComponent(turnId)}`;
  try {
    return await api<ContextRecord>(url);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
    await new Promise((r) => setTimeout(r, RETRY_MS));
    return api<ContextRecord>(url);
  }
}

function TokenChart({ r }: { r: ContextRecord }) {
  const bars = useMemo(() => tokenBars(r.parts), [r.parts]);
  return (
    <section aria-label="Tokens per part">
      <h3>What the model was given <span className="muted small">{r.total_tokens.toLocaleString()} of {r.budget_tokens.toLocaleString()} tokens (estimated)</span></h3>
      <ul className="ctx-bars">
        {bars.map((b) => (
          <li key={b.name} className={`ctx-bar-row ctx-${b.state}`} data-testid="context-part" data-part={b.name}>
            <span className="ctx-bar-label">{b.label}</span>
            <span className="ctx-bar-track" aria-hidden="true"><span className={`ctx-bar ctx-kind-${b.kind}`} style={{ width: `${b.pct}%` }} /></span>
            <span className="ctx-bar-value">{b.tokens.toLocaleString()}{b.state !== 'included' && <span className="muted small"> {b.state.replace('_', ' ')}</span>}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Sources({ part }: { part: ContextPart }) {
  const items = part.items ?? [];
  return (
    <section aria-label={partLabel(part.name)}>
      <h3>{partLabel(part.name)} <span className="muted small">{items.length ? `${items.length} used` : part.detail ?? part.state}</span></h3>
      {items.length > 0 && (
        <ol className="ctx-items">
          {items.map((i, n) => (
            <li key={n} className="ctx-item">
              <span className="ctx-score" title="Relevance score">{formatScore(i.score)}</span>
              <span className="ctx-item-text">
                {i.document_id
                  ? <Link to={`/knowledge/${encodeURIComponent(i.document_id)}${i.chunk_index !== undefined ? `#chunk-${i.chunk_index}` : ''}`}>{i.document_title ?? i.document_id}{i.chunk_index !== undefined ? `, passage ${i.chunk_index + 1}` : ''}</Link>
                  : null}
                {i.text && <span className="ctx-snippet">{i.text}</span>}
              </span>
            </li>
          ))}
        </ol>
      )}
      {part.items_omitted ? <p className="muted small">{part.items_omitted} more not shown</p> : null}
    </section>
  );
}

function History({ part }: { part: ContextPart }) {
  const items = part.items ?? [];
  const kept = items.filter((i) => i.included).length;
  return (
    <details className="ctx-history">
      <summary>History: {kept} earlier message{kept === 1 ? '' : 's'} sent{part.dropped ? `, ${part.dropped} left out by the context budget` : ''}</summary>
      <ol className="ctx-items">
        {items.map((i, n) => (
          <li key={n} className={`ctx-item${i.included ? '' : ' ctx-dropped'}`}>
            <span className="ctx-score">{i.tokens ?? 0}</span>
            <span className="ctx-item-text"><span className="muted small">{i.role}{i.included ? '' : ' · not sent'}</span> <span className="ctx-snippet">{i.text}</span></span>
          </li>
        ))}
      </ol>
    </details>
  );
}

function Trace({ r }: { r: ContextRecord }) {
  const rows = useMemo(() => (r.trace.length ? timeline(r.trace) : []), [r.trace]);
  return (
    <section aria-label="Steps">
      <h3>Steps</h3>
      <ol className="ctx-timeline">
        {rows.map((s) => (
          <li key={s.key} className={`ctx-step${s.ok ? '' : ' ctx-step-warn'}`} data-testid="context-trace-step">
            <span className="ctx-step-label">{s.label}</span>
            <span className="ctx-step-track" aria-hidden="true"><span className="ctx-step-bar" style={{ marginLeft: `${s.offsetPct}%`, width: `${s.widthPct}%` }} /></span>
            <span className="ctx-step-ms">{formatMs(s.ms)}</span>
            <span className="ctx-step-summary muted small">{s.status}{s.summary && s.summary !== s.status ? ` · ${s.summary}` : ''}</span>
          </li>
        ))}
      </ol>
      {r.steps_omitted > 0 && <p className="muted small">{r.steps_omitted} more steps not recorded</p>}
    </section>
  );
}

/** The panel for the turn `turnId`; `onClose` when the user closes it (Escape, backdrop, Close). */
export default function ContextPanel({ turnId, onClose }: { turnId: string; onClose: () => void }) {
  const q = useQuery<ContextRecord>(`/v1/context/turns/${encodeURIComponent(turnId)}`, () => loadRecord(turnId));
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
    const onKey = (e: KeyboardEvent): void => { if (e.key === 'Escape') onClose(); };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  const r = q.data;
  const missing = q.error instanceof ApiError && q.error.status === 404;
  const texts = r?.parts.filter((p) => p.text && (p.kind === 'system' || p.kind === 'profile' || p.kind === 'input')) ?? [];
  const history = r?.parts.find((p) => p.kind === 'history');
  return (
    <div className="drawer-backdrop" onClick={onClose}>
      <div className="drawer ctx-panel" role="dialog" aria-modal="true" aria-label="Why this answer" tabIndex={-1} ref={ref} onClick={(e) => e.stopPropagation()} data-testid="context-panel">
        <div className="drawer-head"><h2>Why this answer</h2><button type="button" className="link" onClick={onClose} aria-label="Close why this answer">Close</button></div>
        {!r && !q.error && <p className="muted" aria-busy="true">Loading…</p>}
        {missing && <p className="muted">No context was recorded for this answer.</p>}
        {q.error && !missing && <p className="error" role="alert">{q.error.message}</p>}
        {r && (
          <>
            <p className="muted small">
              {r.model ?? r.model_role} · {r.status}{r.usage.prompt_tokens ? ` · ${r.usage.prompt_tokens.toLocaleString()} prompt / ${r.usage.completion_tokens.toLocaleString()} answer tokens counted by the provider` : ''}
              {r.truncated ? ' · long texts shortened' : ''}
            </p>
            <TokenChart r={r} />
            {sourceParts(r).map((p) => <Sources key={p.name} part={p} />)}
            {history && history.items && history.items.length > 0 && <History part={history} />}
            {texts.map((p) => (
              <details key={p.name} className="ctx-text"><summary>{partLabel(p.name)}</summary><pre>{p.text}</pre></details>
            ))}
            <Trace r={r} />
          </>
        )}
      </div>
    </div>
  );
}
