/**
 * One message: text (Markdown for answers), folded reasoning and tool calls, sandbox runs (code,
 * output, files; SandboxCall.tsx), approvals, notices, actions.
 */
import { memo, useMemo, useState } from 'react';
import type { ChatItem, ToolCallItem } from './model';
import type { Citation } from '../api/types';
import { Link } from '../app/Link';
import { renderMarkdown } from './markdown';
import { branchAt, copyText, regenerate } from './actions';
import { ApprovalCard } from './ApprovalCard';
import { SandboxCall } from './SandboxCall';
import { isSandboxRun } from './sandbox-result';
import { ReceiptBadge } from '../receipts/ReceiptBadge';
import { WhyAnswer } from '../context/WhyAnswer';
import type { ConvKey } from '../store';
import { useAction } from '../app/use-action';

function pretty(s: string): string {
  try { return JSON.stringify(JSON.parse(s), null, 2); } catch { return s; }
}

function Tool({ t }: { t: ToolCallItem }) {
  return (
    <details className="tool">
      <summary><span className="tool-name">{t.name}</span> <span className="muted small">{t.result !== null ? 'done' : t.done ? 'waiting for result' : 'running…'}</span></summary>
      {t.args && <><div className="label">Arguments</div><pre>{pretty(t.args)}</pre></>}
      {t.result !== null && <><div className="label">Result</div><pre>{t.result}</pre></>}
    </details>
  );
}

/**
 * The answer's sources as numbered chips that open the document at the cited chunk. When the text
 * cites some as [n], those are shown; otherwise every source the search returned, labelled so.
 */
function Citations({ list, text }: { list: Citation[]; text: string }) {
  const cited = new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
  const hits = list.filter((c) => cited.has(c.index));
  const shown = hits.length ? hits : list;
  return (
    <nav className="citations" aria-label="Sources">
      <span className="label">{hits.length ? 'Sources' : 'Sources found'}</span>
      <ol>
        {shown.map((c) => (
          <li key={`${c.index}-${c.document_id}-${c.chunk_index}`}>
            <Link to={`/knowledge/${encodeURIComponent(c.document_id)}#chunk-${c.chunk_index}`} className="cite-chip">
              <span className="cite-n" aria-hidden="true">{c.index}</span>
              <span className="cite-title">{c.document_title}</span>
              <span className="sr-only">, source {c.index}, passage {c.chunk_index + 1}</span>
            </Link>
          </li>
        ))}
      </ol>
    </nav>
  );
}

function MessageRowImpl({ item, sessionId, convKey, isLastAnswer, lastUserText, busy }: {
  item: ChatItem; sessionId: string | null; convKey: ConvKey; isLastAnswer: boolean; lastUserText: string; busy: boolean;
}) {
  const html = useMemo(() => (item.role === 'assistant' ? renderMarkdown(item.content) : ''), [item.role, item.content]);
  const [copied, setCopied] = useState(false);
  const { error: err, run } = useAction();
  const copy = async (): Promise<void> => {
    setCopied(await copyText(item.content));
    setTimeout(() => setCopied(false), 1500);
  };
  const branch = async (): Promise<void> => {
    const serverId = item.serverId;
    if (!sessionId || !serverId) return;
    await run(() => branchAt(sessionId, serverId));
  };
  // Sandbox runs (code, output, files) show in the message; other tool calls stay folded.
  const runs = useMemo(() => item.tools.filter((t) => isSandboxRun(t.name)), [item.tools]);
  const others = useMemo(() => item.tools.filter((t) => !isSandboxRun(t.name)), [item.tools]);
  // While a parked tool call waits for a decision the dots would suggest text is coming: hide them.
  const waiting = item.approvals.some((a) => a.status === 'pending');
  const empty = !item.content && item.streaming;
  return (
    <article className={`msg ${item.role}`} aria-label={item.role === 'user' ? 'You' : 'Assistant'} data-streaming={item.streaming || undefined}>
      <div className="who">{item.role === 'user' ? 'You' : 'Assistant'}</div>
      {item.reasoning && <details className="reasoning"><summary>Reasoning</summary><pre>{item.reasoning}</pre></details>}
      {others.length > 0 && (
        <details className="tools">
          <summary>{others.length} tool call{others.length === 1 ? '' : 's'}</summary>
          {others.map((t) => <Tool key={t.id} t={t} />)}
        </details>
      )}
      {runs.map((t) => (
        <SandboxCall key={t.id} t={t} turnId={item.turnId} streaming={item.streaming} awaitingApproval={item.approvals.some((a) => a.call_id === t.id && a.status === 'pending')} />
      ))}
      {item.approvals.map((a) => <ApprovalCard key={a.id} approval={a} />)}
      {item.role === 'user'
        ? <div className="text plain">{item.content}</div>
        : empty ? (waiting ? null : <div className="text typing" aria-label="Answer streaming"><span /><span /><span /></div>)
          // Safe: renderMarkdown escapes raw HTML and filters link targets (chat/markdown.ts).
          : <div className="text md" dangerouslySetInnerHTML={{ __html: html }} />}
      {item.role === 'assistant' && item.citations.length > 0 && <Citations list={item.citations} text={item.content} />}
      {item.notices.map((n, i) => <p key={i} className={`notice ${n.kind}`} role={n.kind === 'error' || n.kind === 'blocked' ? 'alert' : 'status'}>{n.text}</p>)}
      {err && <p className="error small" role="alert">{err}</p>}
      {!item.streaming && (
        <div className="actions">
          {item.role === 'assistant' && item.turnId && <ReceiptBadge turnId={item.turnId} initial={item.receipt?.status ?? 'pending'} />}
          {item.role === 'assistant' && item.turnId && <WhyAnswer turnId={item.turnId} />}
          {item.content && <button type="button" className="link" onClick={() => { void copy(); }}>{copied ? 'Copied' : 'Copy'}</button>}
          {item.role === 'assistant' && isLastAnswer && lastUserText && <button type="button" className="link" disabled={busy} onClick={() => { void regenerate(convKey, lastUserText); }}>Regenerate</button>}
          {sessionId && item.serverId && <button type="button" className="link" onClick={() => { void branch(); }}>Branch from here</button>}
        </div>
      )}
    </article>
  );
}

export const MessageRow = memo(MessageRowImpl);
