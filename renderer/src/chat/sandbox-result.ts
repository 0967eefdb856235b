/**
 * The sandbox's tool calls as the chat draws them (issue 12 item 9): pure helpers, no DOM.
 *
 * - Which calls are sandbox runs (`execute_code` with `{code}`, `bash` with `{command}`), and their
 *   source, read from the streamed arguments even while they are still incomplete JSON.
 * - The result: the JSON of the sandbox's `RunResult` (services/sandbox/src/contracts.ts), or the
 *   execute_code / bash tool's shape of it (services/sandbox/src/tools.ts: the same fields, produced
 *   files as `files: [{name, mime, bytes}]`), read defensively: the live stream cuts a tool result at
 *   2,000 characters (spec "Limits"), so a long
 *   result arrives as a JSON prefix (lenient-json.ts keeps what it has and says it was cut); a
 *   failed call is `error: <message>` (the runtime's form) or an error body `{error, code}`; anything
 *   else is plain text.
 * - Long output is cut for the first view (`cutOutput`: 80 lines / 8,192 characters).
 * - Artifacts: the `artifact` stream event `{call_id, artifacts: [{name, mime, bytes, sha256, url}]}`
 *   (or one artifact per event, `{call_id, name, ...}`), the names a stored result carries, and the
 *   audit replay (`GET /v1/audit/turns/{turn_id}/replay`) that gives a stored call its URLs back
 *   (matched by sha256) and the whole tool output (the `tool_output` artifact of `tool_returned`).
 */
import { parseLenientJson } from './lenient-json';

/** Tool names of the sandbox runs and the language of their source. */
const RUN_TOOLS: Readonly<Record<string, { arg: 'code' | 'command'; language: 'python' | 'bash' }>> = {
  execute_code: { arg: 'code', language: 'python' },
  bash: { arg: 'command', language: 'bash' },
};

/** The run tool a call names (`execute_code`, `bash`, also namespaced as `sandbox.bash`, `sandbox__bash`), or null. */
function runTool(name: string): { arg: 'code' | 'command'; language: 'python' | 'bash' } | null {
  const base = name.split(/[.:/]|__/).at(-1) ?? name;
  return Object.hasOwn(RUN_TOOLS, base) ? RUN_TOOLS[base]! : null;
}

/** True when the tool call is a sandbox run (`execute_code` or `bash`). */
export function isSandboxRun(name: string): boolean {
  return runTool(name) !== null;
}

// ---------------------------------------------------------------------------------------------
// The call's source.

/** The source of a sandbox run: the code or command, read from the (possibly still streaming) arguments. */
export interface RunSource { language: 'python' | 'bash'; source: string }

/** The code of an `execute_code` call or the command of a `bash` call; null for other tools. */
export function runSource(name: string, args: string): RunSource | null {
  const tool = runTool(name);
  if (!tool) return null;
  const parsed = parseLenientJson(args)?.value;
  const v = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>)[tool.arg] : undefined;
  return { language: tool.language, source: typeof v === 'string' ? v : '' };
}

/**
 * The source as a fenced Markdown block (the chat's Markdown renderer highlights it and escapes
 * everything): the fence is longer than any backtick run inside.
 */
export function fencedSource(s: RunSource): string {
  const longest = Math.max(2, ...[...s.source.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${s.language}\n${s.source}\n${fence}\n`;
}

// ---------------------------------------------------------------------------------------------
// Artifacts.

/** A file a run produced, as the chat shows it. `url` (the audit artifact route) when known. */
export interface ArtifactRef {
  /** Workspace-relative path, e.g. `output/figure-1.png`. */
  name: string;
  mime: string;
  /** Size, bytes; null when not said. */
  bytes: number | null;
  /** Lowercase hex sha256; null when not said. */
  sha256: string | null;
  /** `/v1/audit/turns/{turn_id}/artifacts/{event_id}/{kind}`, or null (not fetchable yet). */
  url: string | null;
}

const IMAGE_TYPES = new Set(['image/png', 'image/svg+xml', 'image/jpeg', 'image/gif', 'image/webp']);
const BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png', svg: 'image/svg+xml', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  csv: 'text/csv', txt: 'text/plain', json: 'application/json', html: 'text/html', pdf: 'application/pdf',
};

/** True for the image types shown inline (PNG, SVG, JPEG, GIF, WebP). */
export function isInlineImage(mime: string): boolean {
  return IMAGE_TYPES.has(mime.split(';')[0]!.trim().toLowerCase());
}

/**
 * True for an artifact URL the renderer may fetch with the user's bearer: a same-origin path of the
 * audit artifact route (never another host, never a `..` segment).
 */
export function safeArtifactUrl(url: string): boolean {
  return /^\/v1\/audit\/turns\/[^/?#]+\/artifacts\/[^/?#]+\/[^/?#]+$/.test(url) && !/(^|\/)\.\.?(\/|$)/.test(url) && !/%2e%2e|%2f/i.test(url);
}

/** The file name of an artifact path (`output/fig.png` -> `fig.png`). */
export function baseName(name: string): string {
  return name.split('/').filter(Boolean).at(-1) ?? name;
}

/** One artifact from loose JSON (an event's entry, a result's entry), or null when it names no file. */
export function toArtifact(v: unknown): ArtifactRef | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const name = typeof o.name === 'string' && o.name ? o.name : typeof o.path === 'string' && o.path ? o.path : null;
  if (!name) return null;
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
  const mime = typeof o.mime === 'string' && o.mime ? o.mime : typeof o.content_type === 'string' && o.content_type ? o.content_type : BY_EXTENSION[ext] ?? 'application/octet-stream';
  const bytesRaw = typeof o.bytes === 'number' ? o.bytes : typeof o.size === 'number' ? o.size : null;
  const bytes = bytesRaw !== null && Number.isFinite(bytesRaw) && bytesRaw >= 0 ? bytesRaw : null;
  const sha256 = typeof o.sha256 === 'string' && /^[0-9a-f]{64}$/.test(o.sha256) ? o.sha256 : null;
  const url = typeof o.url === 'string' && safeArtifactUrl(o.url) ? o.url : null;
  return { name, mime, bytes, sha256, url };
}

/** The artifacts an `artifact` event announces: `{artifacts: [...]}`, or one artifact as the value itself. */
export function artifactsOfEvent(value: Record<string, unknown>): ArtifactRef[] {
  if (Array.isArray(value.artifacts)) return value.artifacts.map(toArtifact).filter((a): a is ArtifactRef => a !== null);
  const one = toArtifact(value);
  return one ? [one] : [];
}

/**
 * `list` plus `more`, one entry per file (its workspace path names it: a run's result and its
 * `artifact` event name the same files): a later entry fills what the earlier one lacked (its URL,
 * size, digest). Returns `list` itself when nothing changed.
 */
export function mergeArtifacts(list: readonly ArtifactRef[], more: readonly ArtifactRef[]): ArtifactRef[] {
  if (!more.length) return list as ArtifactRef[];
  const out = [...list];
  let changed = false;
  for (const a of more) {
    const i = out.findIndex((x) => x.name === a.name);
    if (i < 0) { out.push(a); changed = true; continue; }
    const x = out[i]!;
    const merged: ArtifactRef = { name: x.name, mime: x.mime !== 'application/octet-stream' ? x.mime : a.mime, bytes: x.bytes ?? a.bytes, sha256: x.sha256 ?? a.sha256, url: x.url ?? a.url };
    if (merged.mime !== x.mime || merged.bytes !== x.bytes || merged.sha256 !== x.sha256 || merged.url !== x.url) { out[i] = merged; changed = true; }
  }
  return changed ? out : list as ArtifactRef[];
}

// ---------------------------------------------------------------------------------------------
// The result.

/** The exception of a failed run. */
export interface RunError { name: string; message: string; traceback: string }

/** A run's result as the chat draws it. */
export type RunView =
  | { kind: 'pending' }
  | {
    kind: 'run';
    stdout: string;
    stderr: string;
    /** Null when the result did not say (or was cut before it). */
    exitCode: number | null;
    error: RunError | null;
    timedOut: boolean;
    durationMs: number | null;
    restarted: boolean;
    runtime: string | null;
    artifacts: ArtifactRef[];
    /** The text ended early (the stream's 2,000-character cut): the rest is in the stored result. */
    truncated: boolean;
  }
  /** The call failed before or outside the run (`error: ...`, or an error body `{error, code}`). */
  | { kind: 'error'; message: string; code: string | null }
  /** Something else: shown as it is. */
  | { kind: 'text'; text: string };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function runErrorOf(v: unknown): RunError | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const e = v as Record<string, unknown>;
  if (typeof e.name !== 'string' && typeof e.message !== 'string' && typeof e.traceback !== 'string') return null;
  return { name: str(e.name) || 'Error', message: str(e.message), traceback: str(e.traceback) };
}

/**
 * Read a sandbox tool result (`TOOL_CALL_RESULT` content, or a stored tool message). Never throws.
 * A `RunResult` (or a prefix of one) becomes `run`; `error: ...` and `{error, code}` become `error`.
 */
export function parseRunResult(text: string | null): RunView {
  if (text === null) return { kind: 'pending' };
  const trimmed = text.trim();
  const plainError = /^error:\s*([\s\S]*)$/i.exec(trimmed);
  if (plainError) {
    // The runtime's form of a failed call: `error: <content>`, the content often `{error, code}`.
    const rest = plainError[1]!.trim();
    const body = parseLenientJson(rest)?.value as Record<string, unknown> | undefined;
    if (body && typeof body === 'object' && !Array.isArray(body) && typeof body.error === 'string') {
      return { kind: 'error', message: body.error || 'The call failed.', code: typeof body.code === 'string' ? body.code : null };
    }
    return { kind: 'error', message: rest || 'The call failed.', code: null };
  }
  const parsed = parseLenientJson(trimmed);
  const v = parsed?.value;
  if (!parsed || !v || typeof v !== 'object' || Array.isArray(v)) return { kind: 'text', text };
  const o = v as Record<string, unknown>;
  const looksRun = ['stdout', 'stderr', 'exit_code', 'duration_ms', 'timed_out'].some((k) => k in o)
    || (!!o.error && typeof o.error === 'object' && typeof (o.error as { traceback?: unknown }).traceback === 'string');
  if (!looksRun) {
    if (typeof o.error === 'string' || (o.error && typeof o.error === 'object' && typeof (o.error as { message?: unknown }).message === 'string')) {
      const message = typeof o.error === 'string' ? o.error : str((o.error as { message: unknown }).message);
      return { kind: 'error', message: message || 'The call failed.', code: typeof o.code === 'string' ? o.code : null };
    }
    return { kind: 'text', text };
  }
  return {
    kind: 'run',
    stdout: str(o.stdout),
    stderr: str(o.stderr),
    exitCode: typeof o.exit_code === 'number' && Number.isInteger(o.exit_code) ? o.exit_code : null,
    error: runErrorOf(o.error),
    timedOut: o.timed_out === true,
    durationMs: typeof o.duration_ms === 'number' && Number.isFinite(o.duration_ms) ? o.duration_ms : null,
    restarted: o.restarted === true,
    runtime: typeof o.runtime === 'string' && o.runtime ? o.runtime : null,
    // `artifacts` of the service's RunResult; `files` ({name, mime, bytes}) of the execute_code / bash tool result.
    artifacts: [o.artifacts, o.files].flatMap((l) => (Array.isArray(l) ? l : [])).map(toArtifact).filter((a): a is ArtifactRef => a !== null),
    truncated: !parsed.complete,
  };
}

/** True when the run failed: an exception, a timeout, a non-zero exit, or a call that did not run. */
export function runFailed(v: RunView): boolean {
  if (v.kind === 'error') return true;
  if (v.kind !== 'run') return false;
  return v.error !== null || v.timedOut || (v.exitCode !== null && v.exitCode !== 0);
}

// ---------------------------------------------------------------------------------------------
// Output cutting and formatting.

/** Lines shown before "Show all". */
export const OUTPUT_MAX_LINES = 80;
/** Characters shown before "Show all". */
export const OUTPUT_MAX_CHARS = 8192;

/** Output cut for the first view. */
export interface CutOutput { text: string; cut: boolean; totalLines: number; totalChars: number }

/** The first `maxLines` lines and at most `maxChars` characters of `text`; `cut` when anything was left out. */
export function cutOutput(text: string, maxLines = OUTPUT_MAX_LINES, maxChars = OUTPUT_MAX_CHARS): CutOutput {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const lines = body === '' ? 0 : body.split('\n').length;
  if (lines <= maxLines && text.length <= maxChars) return { text, cut: false, totalLines: lines, totalChars: text.length };
  let end = 0;
  for (let k = 0; k < maxLines; k++) {
    const nl = text.indexOf('\n', end);
    if (nl < 0) { end = text.length; break; }
    end = nl + 1;
  }
  let shown = text.slice(0, Math.min(end, maxChars));
  // Do not end on half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(shown)) shown = shown.slice(0, -1);
  return { text: shown, cut: true, totalLines: lines, totalChars: text.length };
}

/** A size in B / KB / MB. */
export function formatBytes(n: number | null): string {
  if (n === null) return '';
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A duration in ms as `35 ms`, `1.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

// ---------------------------------------------------------------------------------------------
// The audit replay of a turn.

/** What the renderer reads of `GET /v1/audit/turns/{turn_id}/replay` (audit's `ReplayResponse`). */
export interface ReplayLike {
  events: Array<{ payload_type?: string; payload?: unknown; artifacts?: Array<{ kind?: string; sha256?: string; url?: string; content_type?: string; size?: number }> }>;
}

/** What the replay gives one call: its whole tool output's URL, and artifact URLs by sha256 and by file name. */
export interface ReplayOfCall { outputUrl: string | null; urlBySha: ReadonlyMap<string, string>; urlByName: ReadonlyMap<string, string> }

/**
 * The replay's facts for call `callId`: the `tool_output` artifact of its `tool_returned` event (the
 * whole result the stream cut); the files that event committed (`payload.artifacts: [{name, sha256,
 * kind}]`, stored under the event's id) by name; and every artifact of the turn by sha256
 * (content-addressed: the same digest is the same file, whatever event committed it).
 */
export function replayOfCall(replay: ReplayLike, callId: string): ReplayOfCall {
  let outputUrl: string | null = null;
  const urlBySha = new Map<string, string>();
  const urlByName = new Map<string, string>();
  for (const e of Array.isArray(replay?.events) ? replay.events : []) {
    const arts = (Array.isArray(e.artifacts) ? e.artifacts : []).filter((a) => typeof a.url === 'string' && safeArtifactUrl(a.url));
    const p = e.payload && typeof e.payload === 'object' ? e.payload as Record<string, unknown> : {};
    const ofCall = e.payload_type === 'tool_returned' && p.call_id === callId;
    for (const a of arts) {
      if (ofCall && a.kind === 'tool_output') outputUrl = a.url!;
      else if (typeof a.sha256 === 'string' && !urlBySha.has(a.sha256)) urlBySha.set(a.sha256, a.url!);
    }
    if (!ofCall || !Array.isArray(p.artifacts)) continue;
    for (const c of p.artifacts as unknown[]) {
      if (!c || typeof c !== 'object') continue;
      const f = c as { name?: unknown; kind?: unknown; sha256?: unknown };
      const hit = arts.find((a) => (typeof f.kind === 'string' && a.kind === f.kind) || (typeof f.sha256 === 'string' && a.sha256 === f.sha256));
      if (typeof f.name === 'string' && hit) urlByName.set(f.name, hit.url!);
    }
  }
  return { outputUrl, urlBySha, urlByName };
}

/** `list` with the URLs the replay knows filled in (by sha256, else by the call's file name). */
export function withReplayUrls(list: readonly ArtifactRef[], r: ReplayOfCall): ArtifactRef[] {
  return list.map((a) => {
    if (a.url) return a;
    const url = (a.sha256 ? r.urlBySha.get(a.sha256) : undefined) ?? r.urlByName.get(a.name);
    return url ? { ...a, url } : a;
  });
}
