/**
 * A sandbox run in the chat (issue 12 item 9): the code (`execute_code`) or command (`bash`) in a
 * highlighted block, badges (exit status, timeout, restart, duration, runtime), stdout / stderr and
 * the exception folded under it (closed when the run succeeded, open when it failed), long output
 * cut with "Show all", images inline and other files as download chips.
 *
 * The result is read by `parseRunResult` (sandbox-result.ts). The live stream cuts a result at
 * 2,000 characters: "Show all" then loads the whole output from the turn's replay (the
 * `tool_output` artifact of its `tool_returned` event). Artifact bodies come from the audit artifact
 * route with the user's bearer (sandbox-files.ts); a stored call (after a reload) gets their URLs
 * from the replay by sha256.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ToolCallItem } from './model';
import { renderMarkdown } from './markdown';
import {
  baseName, cutOutput, fencedSource, formatBytes, formatDuration, isInlineImage, mergeArtifacts, parseRunResult, replayOfCall, runFailed, runSource,
  withReplayUrls, type ArtifactRef, type ReplayOfCall, type RunView,
} from './sandbox-result';
import { artifactBlobUrl, artifactText, downloadArtifact, loadReplay } from './sandbox-files';
import { errorText, useAction } from '../app/use-action';

/** One output stream (stdout or stderr), cut unless `whole`. */
function Stream({ label, text, whole, kind }: { label: string; text: string; whole: boolean; kind: 'stdout' | 'stderr' }) {
  const c = useMemo(() => cutOutput(text), [text]);
  return (
    <>
      <div className="label">{label}</div>
      <pre className={`sandbox-stream ${kind}${whole ? ' whole' : ''}`} tabIndex={0} aria-label={label}>{whole ? text : c.text}</pre>
    </>
  );
}

/** What a call without a result is doing. */
type Waiting = 'writing' | 'approval' | 'running' | 'no_result';
const WAITING: Readonly<Record<Waiting, string>> = { writing: 'writing…', approval: 'waiting for approval', running: 'running…', no_result: 'no result' };

function Badges({ v, waiting }: { v: RunView; waiting: Waiting | null }) {
  if (waiting) return <span className={`sbadge${waiting === 'approval' ? ' warn' : ''}`} data-state={waiting === 'no_result' ? undefined : 'running'}>{WAITING[waiting]}</span>;
  if (v.kind === 'error') return <span className="sbadge bad">failed</span>;
  if (v.kind !== 'run') return null;
  return (
    <>
      {v.exitCode !== null && <span className={`sbadge ${v.exitCode === 0 && !v.error ? 'ok' : 'bad'}`} title="Exit status">exit {v.exitCode}</span>}
      {v.error && <span className="sbadge bad">{v.error.name}</span>}
      {v.timedOut && <span className="sbadge warn">timed out</span>}
      {v.restarted && <span className="sbadge warn" title="The session was restarted: its variables are gone.">restarted</span>}
      {v.durationMs !== null && <span className="sbadge" title="Run time">{formatDuration(v.durationMs)}</span>}
      {v.runtime && <span className="sbadge" title={v.runtime === 'runsc' ? 'gVisor kernel isolation' : 'Container runtime'}>{v.runtime}</span>}
    </>
  );
}

/** Download button of one artifact. */
function FileChip({ a, testId }: { a: ArtifactRef; testId?: string }) {
  const dl = useAction();
  const name = baseName(a.name);
  const size = formatBytes(a.bytes);
  return (
    <>
      <button type="button" className="file-chip" data-testid={testId} disabled={!a.url || dl.busy} title={a.url ? a.name : `${a.name} (not available yet)`}
        aria-label={`Download ${name}${size ? `, ${size}` : ''}`} onClick={() => { if (a.url) void dl.run(() => downloadArtifact(a.url!, a.name)); }}>
        <span aria-hidden="true">⤓</span><span className="file-name">{name}</span>{size && <span className="muted">{size}</span>}
      </button>
      {dl.error && <span className="error small" role="alert">{dl.error}</span>}
    </>
  );
}

/** An image artifact, fetched with the bearer into a blob URL. */
function ArtifactImage({ a }: { a: ArtifactRef }) {
  const [src, setSrc] = useState<{ url: string; blob: string } | null>(null);
  const [err, setErr] = useState<{ url: string; text: string } | null>(null);
  useEffect(() => {
    if (!a.url) return;
    const url = a.url;
    let on = true;
    artifactBlobUrl(url).then((blob) => { if (on) setSrc({ url, blob }); }, (e: unknown) => { if (on) setErr({ url, text: errorText(e) }); });
    return () => { on = false; };
  }, [a.url]);
  const shown = src && src.url === a.url ? src.blob : null;
  const failed = err && err.url === a.url ? err.text : null;
  return (
    <figure className="sandbox-image" data-testid="sandbox-artifact-image" data-name={a.name}>
      {shown
        ? <img src={shown} alt={`Figure ${baseName(a.name)}`} />
        : <div className="sandbox-image-wait muted small">{failed ?? (a.url ? 'Loading image…' : 'Image not available yet')}</div>}
      <figcaption><FileChip a={a} /></figcaption>
    </figure>
  );
}

/** The fold's hint: how much output there is (`at least` when the stream cut the result). */
function outputHint(run: Extract<RunView, { kind: 'run' }> | null, lines: number): string {
  if (!run) return '';
  if (!lines) return run.error ? '' : 'no output';
  return `${run.truncated ? 'at least ' : ''}${lines} line${lines === 1 ? '' : 's'}`;
}

/**
 * A sandbox run (`execute_code`, `bash`) and its result. `turnId` lets it reach the turn's replay;
 * `streaming` (the answer is still streaming) and `awaitingApproval` (a pending approval names the
 * call) say what a call without a result is doing.
 */
export function SandboxCall({ t, turnId, streaming, awaitingApproval }: { t: ToolCallItem; turnId: string | null; streaming: boolean; awaitingApproval: boolean }) {
  const src = useMemo(() => runSource(t.name, t.args), [t.name, t.args]);
  const live = useMemo(() => parseRunResult(t.result), [t.result]);
  const [whole, setWhole] = useState<RunView | null>(null);
  const [replay, setReplay] = useState<ReplayOfCall | null>(null);
  const [expanded, setExpanded] = useState(false);
  const more = useAction();
  const v = whole ?? live;
  const running = t.result === null;
  const waiting: Waiting | null = !running ? null : awaitingApproval ? 'approval' : !streaming ? 'no_result' : t.done ? 'running' : 'writing';
  const failed = runFailed(v);

  const artifacts = useMemo(() => {
    const base = mergeArtifacts(v.kind === 'run' ? v.artifacts : [], t.artifacts ?? []);
    return replay ? withReplayUrls(base, replay) : base;
  }, [v, t.artifacts, replay]);
  // A stored call names its files but not where they are: ask the turn's replay once.
  const needUrls = !running && !replay && !!turnId && artifacts.some((a) => !a.url);
  useEffect(() => {
    if (!needUrls || !turnId) return;
    let on = true;
    loadReplay(turnId).then((r) => { if (on) setReplay(replayOfCall(r, t.id)); }, () => undefined);
    return () => { on = false; };
  }, [needUrls, turnId, t.id]);

  const run = v.kind === 'run' ? v : null;
  const cuts = useMemo(() => (v.kind === 'run' ? [cutOutput(v.stdout), cutOutput(v.stderr)] : v.kind === 'text' ? [cutOutput(v.text)] : []), [v]);
  const cut = cuts.some((c) => c.cut);
  const streamCut = !!run?.truncated;
  const lines = run ? cuts.reduce((n, c) => n + c.totalLines, 0) : 0;
  const showAll = async (): Promise<void> => {
    if (streamCut && turnId) {
      const ok = await more.run(async () => {
        const r = replayOfCall(await loadReplay(turnId), t.id);
        if (!r.outputUrl) throw new Error('The whole output is not in the audit log yet; try again in a moment.');
        setWhole(parseRunResult(await artifactText(r.outputUrl)));
        setReplay(r);
      });
      if (!ok) return;
    }
    setExpanded(true);
  };

  const images = artifacts.filter((a) => isInlineImage(a.mime));
  const files = artifacts.filter((a) => !isInlineImage(a.mime));
  const label = src?.language === 'bash' ? 'Shell command' : 'Python code';
  const codeHtml = useMemo(() => (src && src.source ? renderMarkdown(fencedSource(src)) : ''), [src]);

  return (
    <div className={`sandbox-call${failed ? ' failed' : ''}`} role="group" aria-label={`Sandbox run: ${t.name}`} data-testid="sandbox-call" data-call-id={t.id} data-state={running ? (waiting === 'no_result' ? 'no_result' : 'running') : failed ? 'failed' : 'ok'}>
      <div className="sandbox-head">
        <span className="tool-name">{t.name}</span>
        <Badges v={v} waiting={waiting} />
      </div>
      {/* Safe: renderMarkdown escapes everything in a fenced block (chat/markdown.ts). */}
      {codeHtml
        ? <div className="sandbox-code" data-testid="sandbox-code" aria-label={label} dangerouslySetInnerHTML={{ __html: codeHtml }} />
        : <div className="sandbox-code muted small" data-testid="sandbox-code" aria-label={label}>{t.done ? '(no source)' : 'Writing the code…'}</div>}
      {!running && (
        <details className="sandbox-fold" open={failed} data-testid="sandbox-output">
          <summary>{failed ? 'Output and error' : 'Output'} <span className="muted small">{outputHint(run, lines)}</span></summary>
          {v.kind === 'error' && (
            <div className="sandbox-error" data-testid="sandbox-error">
              <strong>{v.code ?? 'Error'}</strong>: {v.message}
            </div>
          )}
          {v.kind === 'text' && <pre className="sandbox-stream stdout" tabIndex={0}>{expanded ? v.text : cuts[0]!.text}</pre>}
          {run && (
            <>
              {run.stdout && <Stream label="Output" kind="stdout" text={run.stdout} whole={expanded} />}
              {run.stderr && <Stream label="Errors and warnings (stderr)" kind="stderr" text={run.stderr} whole={expanded} />}
              {!run.stdout && !run.stderr && !run.error && <p className="muted small">The run printed nothing.</p>}
              {run.error && (
                <div className="sandbox-error" data-testid="sandbox-error">
                  <div><strong>{run.error.name}</strong>{run.error.message ? `: ${run.error.message}` : ''}</div>
                  {run.error.traceback && <pre className="sandbox-stream traceback" tabIndex={0} aria-label="Traceback">{run.error.traceback}</pre>}
                </div>
              )}
              {run.timedOut && <p className="notice warn">The run was stopped at its time limit.</p>}
              {run.restarted && <p className="notice warn">The session was restarted: variables from earlier runs are gone.</p>}
            </>
          )}
          {(cut || streamCut) && !expanded && (
            <button type="button" className="link" data-testid="sandbox-show-all" disabled={more.busy} aria-expanded={false} onClick={() => { void showAll(); }}>
              {more.busy ? 'Loading…' : `Show all${lines && !streamCut ? ` (${lines} lines)` : ''}`}
            </button>
          )}
          {expanded && cut && (
            <button type="button" className="link" data-testid="sandbox-show-all" aria-expanded onClick={() => setExpanded(false)}>Show less</button>
          )}
          {more.error && <p className="error small" role="alert">{more.error}</p>}
        </details>
      )}
      {images.length > 0 && <div className="sandbox-images">{images.map((a) => <ArtifactImage key={a.name} a={a} />)}</div>}
      {files.length > 0 && (
        <ul className="sandbox-files" aria-label="Files">
          {files.map((a) => <li key={a.name}><FileChip a={a} testId="sandbox-artifact-file" /></li>)}
        </ul>
      )}
    </div>
  );
}
