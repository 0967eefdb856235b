/**
 * Session containers (issue 12 "Sessions"): starting one (engine usable, hardened spec, runner
 * answered `ready`), disposing of one, the warm pool of ready containers that makes a new session's
 * first call cost about what a warm call costs, and the removal at start of containers a previous
 * process of this deployment left behind (crash cleanup).
 *
 * Labels on every container: `org.svc.sandbox=1`, the deployment (a hash of the data directory, so
 * two stacks or two test runs on one engine never remove each other's containers), the service
 * instance that made it, and the tenant and session it was made for; a warm container is made
 * before its session is known and says `org.svc.sandbox.pool=warm` instead (labels cannot change
 * after creation; the service's own table says which session holds it).
 */
import type { Logger } from 'pino';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { SandboxErrorCode, SandboxSettings } from '../contracts.js';
import { FIX_DOCKER, FIX_IMAGE, type Engine } from './engine.js';
import { BackendError, type ContainerExit, type ContainerHandle, type ContainerSpec, type SandboxBackend } from './ports.js';
import { RunnerClient } from './runner.js';

/** Label every sandbox container carries. */
export const LABEL = 'org.svc.sandbox';
/** Label naming the deployment (hash of the data directory). */
export const LABEL_DEPLOYMENT = 'org.svc.sandbox.deployment';
/** Label naming the service instance (one per process start). */
export const LABEL_INSTANCE = 'org.svc.sandbox.instance';
/** Label naming the tenant of a session container. */
export const LABEL_TENANT = 'org.svc.sandbox.tenant';
/** Label naming the session of a session container. */
export const LABEL_SESSION = 'org.svc.sandbox.session';
/** Label of warm-pool containers. */
export const LABEL_POOL = 'org.svc.sandbox.pool';

/** Size of a session's tmpfs `/tmp`, bytes. */
export const TMPFS_BYTES = 64 * 1024 * 1024;

/** A started container and the client of its runner. */
export interface Container {
  handle: ContainerHandle;
  runner: RunnerClient;
  /** `now()` when it became ready, ms. */
  readyAt: number;
}

/** What `Containers` needs. */
export interface ContainersDeps {
  backend: SandboxBackend;
  engine: Engine;
  settings: SandboxSettings;
  logger: Logger;
  /** Deployment id (label value). */
  deployment: string;
  /** This process's instance id (label value). */
  instance: string;
  /** Deadline of the runner's `ready` line after the start, ms. */
  readyTimeoutMs: number;
  now: () => number;
}

/** Starts and disposes of session containers; tracks removals so `drain()` can wait for them. */
export class Containers {
  private readonly removals = new Set<Promise<void>>();

  constructor(private readonly deps: ContainersDeps) {}

  /** The labels of a container for `tenant`/`session`, or of a warm one. */
  labels(ref: { tenantId: string; sessionId: string } | 'warm'): Record<string, string> {
    const base = { [LABEL]: '1', [LABEL_DEPLOYMENT]: this.deps.deployment, [LABEL_INSTANCE]: this.deps.instance };
    return ref === 'warm' ? { ...base, [LABEL_POOL]: 'warm' } : { ...base, [LABEL_TENANT]: ref.tenantId, [LABEL_SESSION]: ref.sessionId };
  }

  /**
   * Start a container and wait for its runner.
   * @throws DomainError `sandbox_unavailable` / `sandbox_image_missing` (with `fix`) when the engine
   * cannot run sessions, `runner_failed` when the container or its runner does not come up.
   */
  async start(labels: Record<string, string>): Promise<Container> {
    const { backend, engine, settings, logger } = this.deps;
    const state = await engine.usable();
    const spec: ContainerSpec = {
      image: settings.image, runtime: state.choice.runtime, labels, memoryBytes: settings.memLimitBytes, cpus: settings.cpus,
      pidsLimit: settings.pidsLimit, network: state.choice.network, gpu: settings.gpuEnabled, tmpfsBytes: TMPFS_BYTES,
    };
    let handle: ContainerHandle;
    try {
      handle = await backend.create(spec);
    } catch (err) {
      throw this.startError(err);
    }
    const runner = new RunnerClient(handle.stdin, handle.stdout, (line) => logger.debug({ container: handle.id, line: line.slice(0, 200) }, 'stray runner line'));
    handle.stderr.on('data', (b: Buffer) => logger.debug({ container: handle.id, stderr: b.toString('utf8').slice(0, 500) }, 'runner stderr'));
    try {
      await runner.ready(this.deps.readyTimeoutMs);
    } catch (err) {
      this.dispose({ handle, runner, readyAt: 0 });
      logger.warn({ container: handle.id, err: (err as Error).message }, 'sandbox runner did not become ready');
      throw new DomainError<SandboxErrorCode>('runner_failed', 'the sandbox container started but its runner did not become ready');
    }
    return { handle, runner, readyAt: this.deps.now() };
  }

  /** Close the runner and remove the container with its workspace, in the background. */
  dispose(c: Container): void {
    c.runner.close('the container was removed');
    c.handle.detach();
    const p = this.deps.backend.remove(c.handle.id)
      .catch((err: unknown) => { this.deps.logger.warn({ container: c.handle.id, err: (err as Error).message }, 'sandbox container removal failed'); })
      .finally(() => { this.removals.delete(p); });
    this.removals.add(p);
  }

  /** How a container ended (null when unknown). Never throws. */
  async exitOf(c: Container): Promise<ContainerExit | null> {
    try { return await this.deps.backend.exitOf(c.handle.id); } catch { return null; }
  }

  /** Wait for every removal under way. */
  async drain(): Promise<void> {
    while (this.removals.size) await Promise.allSettled([...this.removals]);
  }

  /**
   * Remove the containers of this deployment that another instance (a crashed or stopped earlier
   * process) left behind; containers of an instance `isLive` answers true for (a running peer of a
   * scaled-out deployment, issue 21 item 3) are kept. @returns how many were removed. Never throws
   * (logs instead).
   */
  async removeLeftovers(isLive: (instance: string) => Promise<boolean> = (id) => Promise.resolve(id === this.deps.instance)): Promise<number> {
    const { backend, logger, deployment, instance } = this.deps;
    try {
      const found = await backend.list({ [LABEL]: '1', [LABEL_DEPLOYMENT]: deployment });
      const stale: typeof found = [];
      for (const c of found) {
        const owner = c.labels[LABEL_INSTANCE];
        if (owner !== instance && !(owner && await isLive(owner))) stale.push(c);
      }
      await Promise.all(stale.map((c) => backend.remove(c.id)));
      if (stale.length) logger.info({ removed: stale.length }, 'removed sandbox containers left by a previous process');
      return stale.length;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not look for sandbox containers left by a previous process');
      return 0;
    }
  }

  private startError(err: unknown): DomainError {
    const { engine, logger } = this.deps;
    engine.invalidate();
    const kind = err instanceof BackendError ? err.kind : 'failed';
    logger.warn({ err: (err as Error).message, kind }, 'sandbox container did not start');
    if (kind === 'unavailable') return new DomainError<SandboxErrorCode>('sandbox_unavailable', 'the sandbox cannot run: no Docker engine answers', { extra: { fix: FIX_DOCKER } });
    if (kind === 'image_missing') return new DomainError<SandboxErrorCode>('sandbox_image_missing', 'the sandbox cannot run: its image is not built', { extra: { fix: FIX_IMAGE } });
    return new DomainError<SandboxErrorCode>('runner_failed', 'the sandbox container could not be started');
  }
}

/** What `WarmPool` needs. */
export interface WarmPoolDeps {
  containers: Containers;
  size: number;
  logger: Logger;
  /** Wait before trying again after a failed start, ms. */
  retryMs?: number;
}

/**
 * Ready containers kept for new sessions, refilled in the background after each take. A new session
 * that finds none ready but a start under way waits for that start instead of making one more
 * (a start already half done is the quicker one). While the engine cannot run sessions the pool
 * tries again every `retryMs`.
 */
export class WarmPool {
  private readonly ready: Container[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly waiters: Array<(c: Container | null) => void> = [];
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly deps: WarmPoolDeps) {}

  /** Ready containers now. */
  get count(): number { return this.ready.filter((c) => c.runner.alive).length; }

  /** Take a ready container now (null when none), and start refilling. */
  takeReady(): Container | null {
    let c: Container | undefined;
    while ((c = this.ready.shift()) !== undefined) {
      if (c.runner.alive) break;
      this.deps.containers.dispose(c);
    }
    this.fill();
    return c ?? null;
  }

  /**
   * Take a ready container, or wait for a start under way that no other caller waits for.
   * @returns null when neither is there (the caller starts its own) or the awaited start failed.
   */
  async take(): Promise<Container | null> {
    const c = this.takeReady();
    if (c || this.stopped || this.waiters.length >= this.inFlight.size) return c;
    return new Promise<Container | null>((resolve) => { this.waiters.push(resolve); });
  }

  /** Start containers until the pool holds `size` (ready or starting). */
  fill(): void {
    if (this.stopped || this.retry) return;
    while (this.ready.length + this.inFlight.size - this.waiters.length < this.deps.size) {
      const p: Promise<void> = this.deps.containers.start(this.deps.containers.labels('warm')).then(
        (c) => {
          if (this.stopped) { this.deps.containers.dispose(c); return; }
          const waiter = this.waiters.shift();
          if (waiter) waiter(c); else this.ready.push(c);
        },
        (err: unknown) => {
          this.waiters.shift()?.(null);
          this.deps.logger.debug({ err: (err as Error).message }, 'warm sandbox container did not start; trying again later');
          if (!this.stopped && !this.retry) {
            this.retry = setTimeout(() => { this.retry = null; this.fill(); }, this.deps.retryMs ?? 10_000);
            this.retry.unref();
          }
        },
      ).finally(() => { this.inFlight.delete(p); this.fill(); });
      this.inFlight.add(p);
    }
  }

  /** Stop refilling and remove every pooled container (waits for starts under way). */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.retry) { clearTimeout(this.retry); this.retry = null; }
    for (const w of this.waiters.splice(0)) w(null);
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
    for (const c of this.ready.splice(0)) this.deps.containers.dispose(c);
  }
}
