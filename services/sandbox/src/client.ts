/**
 * THE typed HTTP client other services use to call the code sandbox (DESIGN.md: a service imports
 * another only through its `contracts.ts` or `client.ts`; spec "Code sandbox"; issue 12). The agent
 * runtime's sandbox tools (`tools.ts`) and its file-part copy call it AS THE USER: every call
 * forwards the caller's stamped identity headers (`x-svc-principal`, `x-svc-turn-id`,
 * `x-svc-cap-token`, `x-correlation-id`), so the sandbox applies the user's tenant and session
 * ownership exactly as through the gateway.
 *
 * Routes and shapes are those of `contracts.ts`: `POST /execute`, `/bash`, `/read`, `/read_binary`,
 * `/write`, `/grep`, `/glob`, `/sessions/{tenant_id}/{session_id}/copy`, `GET /sessions`,
 * `DELETE /sessions/{tenant_id}/{session_id}`, `GET /readyz`.
 *
 * Every failure throws `SandboxError` with a stable `code`: the sandbox's own `{error, code}` (and
 * `fix` when it says how to repair the engine) for a non-2xx answer, `sandbox_unreachable` when no
 * answer came, `sandbox_timeout` past the call's deadline, `aborted` when the caller's signal fired.
 */
import { request } from 'undici';
import {
  DEFAULT_TIMEOUT_SECONDS,
  type BashRequest, type CopyRequest, type CopyResponse, type ExecuteRequest, type GlobRequest, type GlobResponse, type GrepRequest, type GrepResponse,
  type ReadBinaryRequest, type ReadBinaryResponse, type ReadRequest, type ReadResponse, type RunResult, type SandboxReadiness, type SessionList,
  type SessionRef, type WriteRequest, type WriteResponse,
} from './contracts.js';

/** Identity headers a call forwards from the caller's request (others are not sent). */
export const SANDBOX_FORWARDED_HEADERS = ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token', 'x-correlation-id'] as const;

/** Deadline of a file or session call, ms. */
export const SANDBOX_FILE_CALL_TIMEOUT_MS = 90_000;

/**
 * Time a run call may take beyond its own `timeout`, ms: a cold container (no warm one left) and the
 * service's watchdog that replaces a stuck runner both fit in it.
 */
export const SANDBOX_RUN_GRACE_MS = 90_000;

/** A failed sandbox call. */
export class SandboxError extends Error {
  constructor(
    message: string,
    /** HTTP status of the answer; 0 when none came. */
    readonly status: number,
    /** The sandbox's code (SANDBOX_ERRORS or a shared one), or `sandbox_unreachable`, `sandbox_timeout`, `aborted`. */
    readonly code: string,
    /** What to run to repair the engine (`sandbox_unavailable`, `sandbox_image_missing`), else null. */
    readonly fix: string | null = null,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

/** Per-call options. */
export interface SandboxCallOptions {
  /** The caller's request headers; only `SANDBOX_FORWARDED_HEADERS` are forwarded. */
  headers: Record<string, string | string[] | undefined>;
  /** Aborts the call (the turn ended). */
  signal?: AbortSignal;
  /** Deadline of the whole call, ms (default: per route, see the constants). */
  timeoutMs?: number;
}

/** The identity headers of `headers` that a sandbox call forwards. */
export function forwardedHeaders(headers: SandboxCallOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of SANDBOX_FORWARDED_HEADERS) {
    const v = headers[k];
    if (typeof v === 'string' && v) out[k] = v;
  }
  return out;
}

/** Deadline of a run call whose body asks for `timeoutSeconds` (default 30 s), ms. */
export function runDeadlineMs(timeoutSeconds: number | undefined): number {
  return (timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000 + SANDBOX_RUN_GRACE_MS;
}

/** The sandbox service, as another service calls it. */
export class SandboxClient {
  /** @param baseUrl the sandbox's base URL, e.g. `http://127.0.0.1:8006` (no trailing slash). */
  constructor(private readonly baseUrl: string) {}

  /** `POST /execute`: run Python in the session (state kept across calls). */
  execute(body: ExecuteRequest, opts: SandboxCallOptions): Promise<RunResult> {
    return this.call<RunResult>('POST', '/execute', body, { timeoutMs: runDeadlineMs(body.timeout), ...opts });
  }

  /** `POST /bash`: run a shell command in the session's workspace. */
  bash(body: BashRequest, opts: SandboxCallOptions): Promise<RunResult> {
    return this.call<RunResult>('POST', '/bash', body, { timeoutMs: runDeadlineMs(body.timeout), ...opts });
  }

  /** `POST /read`: text lines `offset`..`offset + limit` of a workspace file. */
  read(body: ReadRequest, opts: SandboxCallOptions): Promise<ReadResponse> {
    return this.call<ReadResponse>('POST', '/read', body, opts);
  }

  /** `POST /read_binary`: a workspace file as base64 with its MIME type, size and sha256. */
  readBinary(body: ReadBinaryRequest, opts: SandboxCallOptions): Promise<ReadBinaryResponse> {
    return this.call<ReadBinaryResponse>('POST', '/read_binary', body, opts);
  }

  /** `POST /write`: write a workspace file (folders created). */
  write(body: WriteRequest, opts: SandboxCallOptions): Promise<WriteResponse> {
    return this.call<WriteResponse>('POST', '/write', body, opts);
  }

  /** `POST /grep`: lines matching a regular expression under a workspace path. */
  grep(body: GrepRequest, opts: SandboxCallOptions): Promise<GrepResponse> {
    return this.call<GrepResponse>('POST', '/grep', body, opts);
  }

  /** `POST /glob`: workspace paths matching a pattern (`**` recursive). */
  glob(body: GlobRequest, opts: SandboxCallOptions): Promise<GlobResponse> {
    return this.call<GlobResponse>('POST', '/glob', body, opts);
  }

  /** `POST /sessions/{tenant_id}/{session_id}/copy`: bulk-write files into the session's workspace. */
  copy(ref: SessionRef, body: CopyRequest, opts: SandboxCallOptions): Promise<CopyResponse> {
    return this.call<CopyResponse>('POST', `/sessions/${encodeURIComponent(ref.tenant_id)}/${encodeURIComponent(ref.session_id)}/copy`, body, opts);
  }

  /** `GET /sessions` (admins and services). */
  sessions(opts: SandboxCallOptions): Promise<SessionList> {
    return this.call<SessionList>('GET', '/sessions', undefined, opts);
  }

  /** `DELETE /sessions/{tenant_id}/{session_id}` (admins). */
  async destroy(ref: SessionRef, opts: SandboxCallOptions): Promise<void> {
    await this.call<null>('DELETE', `/sessions/${encodeURIComponent(ref.tenant_id)}/${encodeURIComponent(ref.session_id)}`, undefined, opts);
  }

  /**
   * `GET /readyz`: the readiness fields when sessions can run.
   * @throws SandboxError 503 `not_ready` (its message names what is missing and the fix) or unreachable.
   */
  readiness(opts: Omit<SandboxCallOptions, 'headers'> = {}): Promise<SandboxReadiness & { status: string }> {
    return this.call<SandboxReadiness & { status: string }>('GET', '/readyz', undefined, { headers: {}, timeoutMs: 2000, ...opts });
  }

  /**
   * One JSON call with the forwarded identity headers and a whole-call deadline.
   * @throws SandboxError on a non-2xx answer, no answer, the deadline or the caller's abort.
   */
  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, opts: SandboxCallOptions): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? SANDBOX_FILE_CALL_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
    const headers: Record<string, string> = { accept: 'application/json', ...forwardedHeaders(opts.headers) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    try {
      const res = await request(`${this.baseUrl}${path}`, {
        method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (opts.signal?.aborted) throw new SandboxError('the call was aborted', 0, 'aborted');
      if (deadline.aborted) throw new SandboxError(`the sandbox did not answer within ${Math.round(timeoutMs / 1000)} s`, 0, 'sandbox_timeout');
      throw new SandboxError(`the sandbox is unreachable (${(err as Error).message})`, 0, 'sandbox_unreachable');
    }
    let parsed: unknown = null;
    if (text) { try { parsed = JSON.parse(text); } catch { parsed = null; } }
    if (status >= 200 && status < 300) return parsed as T;
    const e = (parsed ?? {}) as { error?: unknown; code?: unknown; fix?: unknown };
    throw new SandboxError(
      typeof e.error === 'string' ? e.error : `the sandbox answered HTTP ${status}`, status,
      typeof e.code === 'string' ? e.code : 'sandbox_error', typeof e.fix === 'string' ? e.fix : null,
    );
  }
}
