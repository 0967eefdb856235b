/**
 * From runner answers to the service's answers (issue 12 "Execution", "Files"): the `RunResult` of
 * `/execute` and `/bash` (also when the watchdog replaced the container or the runner died), and the
 * `DomainError` of a refusal. Pure; unit-tested.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { ContainerRuntime, RunResult, SandboxArtifact, SandboxErrorCode } from '../contracts.js';
import type { CallOutcome } from './sessions.js';
import type { RunnerAnswer } from './runner.js';

/** Runner refusal codes the service answers with as they are. */
const PASSED_THROUGH: ReadonlySet<string> = new Set<SandboxErrorCode | 'invalid_request'>([
  'invalid_path', 'path_outside_workspace', 'file_not_found', 'not_a_file', 'file_too_large', 'invalid_pattern', 'invalid_request',
]);

/**
 * The error of a runner refusal `{ok: false, code, message}`: a file or path code as it is,
 * `write_failed` as 400 `invalid_request`, anything else as 502 `runner_failed`.
 */
export function refusalError(a: RunnerAnswer, op: string): DomainError {
  const code = typeof a.code === 'string' ? a.code : '';
  const message = typeof a.message === 'string' && a.message !== '' ? a.message : `${op} refused`;
  if (PASSED_THROUGH.has(code)) return new DomainError(code, message);
  if (code === 'write_failed') return new DomainError('invalid_request', message);
  return new DomainError<SandboxErrorCode>('runner_failed', `the sandbox runner could not ${op}: ${message}`);
}

/** The error of a file operation whose runner stopped answering or died (its container was replaced). */
export function lostRunnerError(op: string): DomainError {
  return new DomainError<SandboxErrorCode>('runner_failed', `the sandbox runner stopped during ${op}; the session was restarted and its variables are gone`);
}

function text(v: unknown): string { return typeof v === 'string' ? v : ''; }
function num(v: unknown, d: number): number { return typeof v === 'number' && Number.isFinite(v) ? v : d; }

/** The artifacts of a runner answer, keeping only well-formed entries. */
export function artifactsOf(v: unknown): SandboxArtifact[] {
  if (!Array.isArray(v)) return [];
  const out: SandboxArtifact[] = [];
  for (const a of v as Array<Record<string, unknown>>) {
    if (typeof a?.name !== 'string' || typeof a.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(a.sha256)) continue;
    out.push({ name: a.name, mime: text(a.mime) || 'application/octet-stream', bytes: Math.max(0, Math.trunc(num(a.bytes, 0))), sha256: a.sha256 });
  }
  return out;
}

/** What a `RunResult` needs beside the runner's outcome. */
export interface RunContext {
  op: 'execute' | 'bash';
  tenantId: string;
  sessionId: string;
  runtime: ContainerRuntime;
  /** The call's timeout, seconds. */
  timeoutSeconds: number;
  /** Wall time the service waited, ms (used when the runner gave none). */
  elapsedMs: number;
  /** The session lost its state before this call (its container died while idle). */
  lostState: boolean;
}

/**
 * The `RunResult` of a run.
 * @throws DomainError when the runner refused the request (`refusalError`).
 */
export function runResult(outcome: CallOutcome, ctx: RunContext): RunResult {
  const base = { tenant_id: ctx.tenantId, session_id: ctx.sessionId, runtime: ctx.runtime };
  if (outcome.kind === 'answer') {
    const a = outcome.answer;
    if (!a.ok) throw refusalError(a, ctx.op);
    const err = a.error as { name?: unknown; message?: unknown; traceback?: unknown } | null | undefined;
    return {
      ...base,
      stdout: text(a.stdout),
      stderr: text(a.stderr),
      exit_code: Math.trunc(num(a.exit_code, err ? 1 : 0)),
      error: err && typeof err === 'object' ? { name: text(err.name) || 'Error', message: text(err.message), traceback: text(err.traceback) } : null,
      timed_out: a.timed_out === true,
      duration_ms: num(a.duration_ms, ctx.elapsedMs),
      artifacts: artifactsOf(a.artifacts),
      restarted: ctx.lostState,
    };
  }
  if (outcome.kind === 'stuck') {
    const message = `the call did not stop at its ${ctx.timeoutSeconds}s timeout; the sandbox was restarted and its variables are gone`;
    return {
      ...base, stdout: '', stderr: message, exit_code: ctx.op === 'bash' ? 124 : 1,
      error: ctx.op === 'execute' ? { name: 'TimeoutError', message, traceback: '' } : null,
      timed_out: true, duration_ms: ctx.elapsedMs, artifacts: [], restarted: true,
    };
  }
  const oom = outcome.exit?.oomKilled === true;
  const status = outcome.exit?.exitCode ?? null;
  const message = oom
    ? 'the sandbox ran out of memory and was restarted; its variables are gone'
    : `the sandbox process exited${status === null ? '' : ` with status ${status}`} and was restarted; its variables are gone`;
  return {
    ...base, stdout: '', stderr: message, exit_code: status === null || status === 0 ? 1 : status,
    error: ctx.op === 'execute' ? { name: oom ? 'MemoryError' : 'SandboxExited', message, traceback: '' } : null,
    timed_out: false, duration_ms: ctx.elapsedMs, artifacts: [], restarted: true,
  };
}
