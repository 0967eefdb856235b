/**
 * The live sandbox sessions (issue 12 "Sessions", "Execution"; spec "Limits": SANDBOX_IDLE_TIMEOUT,
 * SANDBOX_MAX_SESSIONS). One container per (tenant, session), created on first use (from the warm
 * pool when it has one) and reused. Calls of one session run one at a time, in arrival order.
 *
 * - Cap: when `maxSessions` sessions live and a new one is asked for, the longest-idle idle session
 *   is evicted (its container removed); when every session is busy the new one is refused with 503
 *   `session_limit_reached` (and `Retry-After`).
 * - Idle reaper: a session idle for `idleTimeoutSeconds` is removed.
 * - Watchdog: every runner call has a service-side deadline. A call the runner does not answer in
 *   time (code stuck in C, ignoring the runner's own alarm) or a runner that dies (memory limit,
 *   `os._exit`) gets its container removed and replaced; the caller learns it (`restarted`), and the
 *   session's next call runs in a fresh container.
 */
import type { Logger } from 'pino';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { SandboxErrorCode, SandboxSettings } from '../contracts.js';
import { checkOwner, type Caller } from './access.js';
import type { Container, Containers, WarmPool } from './containers.js';
import type { ContainerExit } from './ports.js';
import { RunnerGone, RunnerTimeout, type RunnerAnswer, type RunnerRequest } from './runner.js';

/** A (tenant, session) pair. */
export interface SessionKey {
  tenantId: string;
  sessionId: string;
}

/** One live session. */
export class Session {
  /** Its container; null before the first call and after a failed restart. */
  container: Container | null = null;
  /** Removed (evicted, reaped or destroyed): queued calls are refused. */
  closed = false;
  /** The state was lost outside a call (the container died while idle): the next result says `restarted`. */
  lostState = false;
  /** A container was started for it once. */
  started = false;
  lastUsedAt: number;
  private pendingCalls = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly key: SessionKey, readonly ownerId: string, readonly createdAt: number, private readonly now: () => number) {
    this.lastUsedAt = createdAt;
  }

  /** A call runs or waits. */
  get busy(): boolean { return this.pendingCalls > 0; }

  /** Run `fn` after every call queued before it (one call at a time per session). */
  enqueue<T>(fn: () => Promise<T>): Promise<T> {
    this.pendingCalls++;
    const run = this.tail.then(fn);
    this.tail = run.then(() => undefined, () => undefined);
    return run.finally(() => { this.pendingCalls--; this.lastUsedAt = this.now(); });
  }
}

/** How a runner call ended. */
export type CallOutcome =
  | { kind: 'answer'; answer: RunnerAnswer }
  /** No answer before the deadline: the container was replaced. */
  | { kind: 'stuck' }
  /** The runner died during the call: the container was replaced. */
  | { kind: 'died'; exit: ContainerExit | null };

/** A session as the admin list shows it (without engine figures). */
export interface SessionSnapshot {
  key: SessionKey;
  ownerId: string;
  containerId: string | null;
  runtime: string | null;
  busy: boolean;
  createdAt: number;
  lastUsedAt: number;
}

/** Counters the manager reports. */
export interface SessionEvents {
  /** A container was replaced (`stuck`, `died`) or a session removed (`evicted`, `reaped`, `destroyed`). */
  onEvent?(event: 'stuck' | 'died' | 'evicted' | 'reaped' | 'destroyed'): void;
  /** A session was removed (not at service stop): its key and creator, for the creator's notification (issue 13 item 1). */
  onRemoved?(session: { key: SessionKey; ownerId: string }, why: 'evicted' | 'reaped' | 'destroyed'): void;
}

/** What `SessionManager` needs. */
export interface SessionManagerDeps extends SessionEvents {
  containers: Containers;
  pool: WarmPool;
  settings: Pick<SandboxSettings, 'maxSessions' | 'idleTimeoutSeconds'>;
  logger: Logger;
  now: () => number;
}

function keyOf(k: SessionKey): string {
  return `${k.tenantId}\u0000${k.sessionId}`;
}

/** The table of live sessions. */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly deps: SessionManagerDeps) {}

  /** Live sessions. */
  get size(): number { return this.sessions.size; }

  /**
   * Run `fn` on the session `key` (created on first use, owned by `caller`), after the calls queued
   * before it, with a live container.
   * @throws DomainError `forbidden` (another user's session), `session_limit_reached`,
   * `sandbox_unavailable` / `sandbox_image_missing` / `runner_failed` (no container could be
   * started), `session_not_found` (the session was removed while the call waited).
   */
  async use<T>(key: SessionKey, caller: Caller, fn: (s: Session) => Promise<T>): Promise<T> {
    const k = keyOf(key);
    let s = this.sessions.get(k);
    if (s) {
      checkOwner(caller, s.ownerId);
    } else {
      this.makeRoom();
      s = new Session(key, caller.id, this.deps.now(), this.deps.now);
      this.sessions.set(k, s);
    }
    const session = s;
    try {
      return await session.enqueue(async () => {
        if (session.closed) throw new DomainError<SandboxErrorCode>('session_not_found', 'the sandbox session was removed');
        if (session.container && !session.container.runner.alive) {
          this.deps.containers.dispose(session.container);
          session.container = null;
          session.lostState = true;
        }
        if (!session.container) {
          const c = await this.obtain(key);
          if (session.closed) {
            this.deps.containers.dispose(c);
            throw new DomainError<SandboxErrorCode>('session_not_found', 'the sandbox session was removed');
          }
          session.container = c;
        }
        session.started = true;
        return fn(session);
      });
    } finally {
      // A session whose first container never started leaves no trace.
      if (!session.started && !session.busy && !session.closed && this.sessions.get(k) === session) this.sessions.delete(k);
    }
  }

  /**
   * One runner call on `s` (inside `use`) with a service-side deadline. On no answer, or a dead
   * runner, the container is removed and replaced (from the warm pool, else on the next call).
   * @throws DomainError `session_not_found` when the session was destroyed during the call.
   */
  async call(s: Session, req: RunnerRequest, deadlineMs: number): Promise<CallOutcome> {
    const c = s.container;
    if (!c) throw new DomainError<SandboxErrorCode>('runner_failed', 'the sandbox session has no container');
    try {
      return { kind: 'answer', answer: await c.runner.call(req, deadlineMs) };
    } catch (err) {
      if (s.closed) throw new DomainError<SandboxErrorCode>('session_not_found', 'the sandbox session was removed while the call ran');
      if (err instanceof RunnerTimeout) {
        this.deps.logger.warn({ tenant_id: s.key.tenantId, session_id: s.key.sessionId, op: req.op, deadline_ms: deadlineMs }, 'sandbox call passed its deadline: container replaced');
        this.replace(s);
        this.deps.onEvent?.('stuck');
        return { kind: 'stuck' };
      }
      if (err instanceof RunnerGone) {
        const exit = await this.deps.containers.exitOf(c);
        this.deps.logger.warn({ tenant_id: s.key.tenantId, session_id: s.key.sessionId, op: req.op, exit }, 'sandbox runner died: container replaced');
        this.replace(s);
        this.deps.onEvent?.('died');
        return { kind: 'died', exit };
      }
      throw err;
    }
  }

  /** The live sessions, most recently used first. */
  snapshot(): SessionSnapshot[] {
    return [...this.sessions.values()]
      .map((s) => ({
        key: s.key, ownerId: s.ownerId, containerId: s.container?.handle.id ?? null, runtime: s.container?.handle.runtime ?? null,
        busy: s.busy, createdAt: s.createdAt, lastUsedAt: s.lastUsedAt,
      }))
      .sort((a, b) => b.lastUsedAt - a.lastUsedAt);
  }

  /** Remove the session `key` and its container. @throws DomainError `session_not_found`. */
  destroy(key: SessionKey): void {
    const s = this.sessions.get(keyOf(key));
    if (!s) throw new DomainError<SandboxErrorCode>('session_not_found', 'no such sandbox session');
    this.remove(s, 'destroyed');
  }

  /** Remove sessions idle for `idleTimeoutSeconds`. @returns how many. */
  reap(): number {
    const limit = this.deps.settings.idleTimeoutSeconds * 1000;
    const now = this.deps.now();
    let n = 0;
    for (const s of [...this.sessions.values()]) {
      if (!s.busy && now - s.lastUsedAt >= limit) { this.remove(s, 'reaped'); n++; }
    }
    return n;
  }

  /** Remove every session (service stop). */
  closeAll(): void {
    for (const s of [...this.sessions.values()]) this.remove(s, 'destroyed', false);
  }

  /** Make room for one more session. @throws DomainError `session_limit_reached` when all are busy. */
  private makeRoom(): void {
    const max = this.deps.settings.maxSessions;
    while (this.sessions.size >= max) {
      let victim: Session | null = null;
      for (const s of this.sessions.values()) {
        if (!s.busy && (victim === null || s.lastUsedAt < victim.lastUsedAt)) victim = s;
      }
      if (!victim) {
        throw new DomainError<SandboxErrorCode>('session_limit_reached', `all ${max} sandbox sessions are busy; try again shortly`, { headers: { 'retry-after': '5' } });
      }
      this.deps.logger.info({ tenant_id: victim.key.tenantId, session_id: victim.key.sessionId }, 'sandbox session evicted at the session cap');
      this.remove(victim, 'evicted');
    }
  }

  private async obtain(key: SessionKey): Promise<Container> {
    return (await this.deps.pool.take()) ?? this.deps.containers.start(this.deps.containers.labels(key));
  }

  private replace(s: Session): void {
    if (s.container) this.deps.containers.dispose(s.container);
    s.container = this.deps.pool.takeReady();
  }

  private remove(s: Session, why: 'evicted' | 'reaped' | 'destroyed', report = true): void {
    s.closed = true;
    if (this.sessions.get(keyOf(s.key)) === s) this.sessions.delete(keyOf(s.key));
    if (s.container) this.deps.containers.dispose(s.container);
    s.container = null;
    if (report) { this.deps.onEvent?.(why); this.deps.onRemoved?.(s, why); }
  }
}
