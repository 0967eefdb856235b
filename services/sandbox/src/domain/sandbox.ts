/**
 * The sandbox's use cases (issue 12 "Sessions", "Execution", "Files"; spec "Code sandbox"): run
 * Python or a shell command in the caller's session, read, write, grep and glob its workspace,
 * bulk-copy files into it, list and destroy sessions. Each checks the caller's tenant and the
 * session's owner (access.ts), validates paths before the runner sees them (paths.ts), and runs one
 * queued call on the session (sessions.ts) with its deadline: `timeout + grace` for runs, a fixed
 * deadline for file operations.
 */
import type {
  BashRequest, CopyRequest, CopyResponse, ExecuteRequest, GlobRequest, GlobResponse, GrepRequest, GrepResponse, ReadBinaryRequest,
  ReadBinaryResponse, ReadRequest, ReadResponse, RunResult, SandboxSettings, SessionList, SessionRef, WriteRequest, WriteResponse,
} from '../contracts.js';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../contracts.js';
import { callTenant, checkMayList, type Caller } from './access.js';
import type { Engine } from './engine.js';
import { checkGlobPattern, checkWorkspacePath } from './paths.js';
import type { SandboxBackend } from './ports.js';
import { lostRunnerError, refusalError, runResult } from './results.js';
import type { RunnerAnswer, RunnerRequest } from './runner.js';
import type { Session, SessionKey, SessionManager } from './sessions.js';
import type { WarmPool } from './containers.js';

/** How long the admin list waits for one container's memory figure, ms. */
const STATS_TIMEOUT_MS = 2000;

/** What `Sandbox` needs. */
export interface SandboxDeps {
  sessions: SessionManager;
  pool: WarmPool;
  engine: Engine;
  backend: SandboxBackend;
  settings: SandboxSettings;
  /** Added to a run's timeout for the service-side watchdog, ms. */
  watchdogGraceMs: number;
  /** Deadline of a file operation, ms. */
  fileCallTimeoutMs: number;
  now: () => number;
  /** Counts calls by operation and outcome (`ok`, `refused`, `timed_out`, `restarted`, `failed`). */
  onCall?: (op: string, outcome: string) => void;
}

/** The sandbox use cases. */
export class Sandbox {
  constructor(private readonly deps: SandboxDeps) {}

  /** `POST /execute`: run Python in the session, state kept across calls. */
  execute(caller: Caller, body: ExecuteRequest): Promise<RunResult> {
    return this.run(caller, body, 'execute', { op: 'execute', code: body.code }, body.timeout);
  }

  /** `POST /bash`: run a shell command in the workspace. */
  bash(caller: Caller, body: BashRequest): Promise<RunResult> {
    return this.run(caller, body, 'bash', { op: 'bash', command: body.command }, body.timeout);
  }

  /** `POST /read`: text with pagination (offset and limit in lines). */
  async read(caller: Caller, body: ReadRequest): Promise<ReadResponse> {
    const path = checkWorkspacePath(body.path);
    const a = await this.fileOp(caller, body, { op: 'read', path, offset: body.offset ?? 0, limit: body.limit ?? 2000 });
    return {
      path, content: String(a.content ?? ''), offset: Number(a.offset ?? body.offset ?? 0), lines: Number(a.lines ?? 0),
      total_lines: Number(a.total_lines ?? 0), truncated: a.truncated === true,
    };
  }

  /** `POST /read_binary`: the file as base64 with its MIME type. */
  async readBinary(caller: Caller, body: ReadBinaryRequest): Promise<ReadBinaryResponse> {
    const path = checkWorkspacePath(body.path);
    const a = await this.fileOp(caller, body, { op: 'read_binary', path });
    return { path, content_base64: String(a.content_base64 ?? ''), mime: String(a.mime ?? 'application/octet-stream'), bytes: Number(a.bytes ?? 0), sha256: String(a.sha256 ?? '') };
  }

  /** `POST /write`: write a file (utf8 or base64), creating folders. */
  async write(caller: Caller, body: WriteRequest): Promise<WriteResponse> {
    const path = checkWorkspacePath(body.path);
    const a = await this.fileOp(caller, body, { op: 'write', path, content: body.content, encoding: body.encoding ?? 'utf8' });
    return { path: String(a.path ?? path), bytes: Number(a.bytes ?? 0) };
  }

  /** `POST /grep`: lines matching a regular expression, in a file or under a folder. */
  async grep(caller: Caller, body: GrepRequest): Promise<GrepResponse> {
    const path = body.path === undefined ? undefined : checkWorkspacePath(body.path);
    const a = await this.fileOp(caller, body, { op: 'grep', pattern: body.pattern, ...(path === undefined ? {} : { path }) });
    const matches = Array.isArray(a.matches) ? (a.matches as Array<{ path: unknown; line: unknown; text: unknown }>) : [];
    return { matches: matches.map((m) => ({ path: String(m.path), line: Number(m.line), text: String(m.text) })), truncated: a.truncated === true };
  }

  /** `POST /glob`: workspace paths matching a pattern (`**` recursive). */
  async glob(caller: Caller, body: GlobRequest): Promise<GlobResponse> {
    const pattern = checkGlobPattern(body.pattern);
    const a = await this.fileOp(caller, body, { op: 'glob', pattern });
    return { paths: Array.isArray(a.paths) ? a.paths.map(String) : [], truncated: a.truncated === true };
  }

  /** `POST /sessions/{tenant_id}/{session_id}/copy`: write several files in one queued call (all paths checked first). */
  async copy(caller: Caller, ref: SessionRef, body: CopyRequest): Promise<CopyResponse> {
    const files = body.files.map((f) => ({ ...f, path: checkWorkspacePath(f.path, 'files.path') }));
    const key = this.keyFor(caller, ref);
    const written = await this.deps.sessions.use(key, caller, async (s) => {
      const out: CopyResponse['written'] = [];
      for (const f of files) {
        const a = await this.callFile(s, { op: 'write', path: f.path, content: f.content, encoding: f.encoding ?? 'utf8' });
        out.push({ path: String(a.path ?? f.path), bytes: Number(a.bytes ?? 0) });
      }
      return out;
    });
    return { written };
  }

  /**
   * `GET /sessions` (admins and services): live sessions with memory figures, the pool and the
   * backend state. @throws `admin_required` for other callers.
   */
  async list(caller: Caller): Promise<SessionList> {
    checkMayList(caller);
    const now = this.deps.now();
    // An admin sees the sessions of their tenant; a service sees every session.
    const snaps = this.deps.sessions.snapshot().filter((s) => isServicePrincipal(caller) || s.key.tenantId === caller.tenant_id);
    const memory = await Promise.all(snaps.map((s) => (s.containerId ? this.memoryOf(s.containerId) : Promise.resolve(null))));
    const state = await this.deps.engine.current();
    return {
      sessions: snaps.map((s, i) => ({
        tenant_id: s.key.tenantId, session_id: s.key.sessionId, container_id: s.containerId ?? '',
        runtime: (s.runtime ?? state.choice.runtime) as RunResult['runtime'], state: s.busy ? 'busy' as const : 'idle' as const,
        created_at: new Date(s.createdAt).toISOString(), last_used_at: new Date(s.lastUsedAt).toISOString(),
        age_seconds: Math.max(0, Math.round((now - s.createdAt) / 100) / 10),
        idle_seconds: s.busy ? 0 : Math.max(0, Math.round((now - s.lastUsedAt) / 100) / 10),
        memory_bytes: memory[i] ?? null, memory_limit_bytes: this.deps.settings.memLimitBytes,
      })),
      max_sessions: this.deps.settings.maxSessions,
      warm: this.deps.pool.count,
      readiness: this.deps.engine.readiness(state),
    };
  }

  /**
   * `DELETE /sessions/{tenant_id}/{session_id}` (admins; the route checks the role).
   * @throws `tenant_mismatch` (another tenant's session), `session_not_found`.
   */
  destroy(caller: Caller, ref: SessionRef): void {
    this.deps.sessions.destroy(this.keyFor(caller, ref));
  }

  private keyFor(caller: Caller, ref: SessionRef): SessionKey {
    return { tenantId: callTenant(caller, ref.tenant_id), sessionId: ref.session_id };
  }

  private async run(caller: Caller, ref: SessionRef, op: 'execute' | 'bash', req: RunnerRequest, timeout: number | undefined): Promise<RunResult> {
    const key = this.keyFor(caller, ref);
    const timeoutSeconds = Math.min(timeout ?? DEFAULT_TIMEOUT_SECONDS, this.deps.settings.maxTimeoutSeconds);
    const result = await this.deps.sessions.use(key, caller, async (s) => {
      const lostState = s.lostState;
      s.lostState = false;
      const runtime = s.container!.handle.runtime;
      const started = this.deps.now();
      const outcome = await this.deps.sessions.call(s, { ...req, timeout: timeoutSeconds }, timeoutSeconds * 1000 + this.deps.watchdogGraceMs);
      return runResult(outcome, { op, tenantId: key.tenantId, sessionId: key.sessionId, runtime, timeoutSeconds, elapsedMs: this.deps.now() - started, lostState });
    }).catch((err: unknown) => { this.deps.onCall?.(op, 'failed'); throw err; });
    this.deps.onCall?.(op, result.restarted ? 'restarted' : result.timed_out ? 'timed_out' : 'ok');
    return result;
  }

  private fileOp(caller: Caller, ref: SessionRef, req: RunnerRequest): Promise<RunnerAnswer> {
    return this.deps.sessions.use(this.keyFor(caller, ref), caller, (s) => this.callFile(s, req));
  }

  private async callFile(s: Session, req: RunnerRequest): Promise<RunnerAnswer> {
    const outcome = await this.deps.sessions.call(s, req, this.deps.fileCallTimeoutMs);
    if (outcome.kind !== 'answer') { this.deps.onCall?.(req.op, 'restarted'); throw lostRunnerError(req.op); }
    if (!outcome.answer.ok) { this.deps.onCall?.(req.op, 'refused'); throw refusalError(outcome.answer, req.op); }
    this.deps.onCall?.(req.op, 'ok');
    return outcome.answer;
  }

  private async memoryOf(id: string): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.deps.backend.memoryUsage(id),
        new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), STATS_TIMEOUT_MS); }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
