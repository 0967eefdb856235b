/**
 * The sandbox service, as the kit builds it (DESIGN.md "Inside a service"; issue 12): the Docker
 * backend (or the runtime's), the engine probe behind `/readyz`, the session containers, the warm
 * pool and the session table, wired to the run, file and session routes.
 *
 * At setup it removes the containers a previous process of this deployment left behind (crash
 * cleanup). Background work: the warm pool fills, and the idle reaper removes sessions idle for
 * `SANDBOX_IDLE_TIMEOUT`. `/readyz` answers ready with the `SandboxReadiness` fields while sessions
 * can run, else 503 `not_ready` whose reason names what is missing and the command that fixes it
 * (`docker unavailable ...; fix: start dockerd (sudo dockerd &) or set DOCKER_HOST`, `image missing
 * ...; fix: npm run sandbox:image`). On close every session and pooled container is removed.
 */
import { createHash } from 'node:crypto';
import { selfUrlOf } from '../../shared/kit/self-url.js';
import client from 'prom-client';
import { defineService } from '../../shared/kit/service.js';
import { ulidFactory } from '../../shared/identity/ulid.js';
import { DockerBackend } from './backend/docker.js';
import { SANDBOX_BODY_LIMIT_BYTES, SANDBOX_ERRORS, type SandboxConfig } from './contracts.js';
import { Containers, WarmPool } from './domain/containers.js';
import { Engine } from './domain/engine.js';
import type { SandboxBackend } from './domain/ports.js';
import { Sandbox } from './domain/sandbox.js';
import { SessionManager } from './domain/sessions.js';
import { sessionRemovedNotice } from './domain/session-notices.js';
import { NotificationsClient } from '../../agent-runtime/src/client.js';
import { fileRoutes } from './routes/files.js';
import { runRoutes } from './routes/run.js';
import { sessionRoutes } from './routes/sessions.js';
import { ownerRouting } from './routes/owner-routing.js';
import { LocalOwners, type SessionOwners } from './domain/owners.js';
import { openRedisOwners } from './clients/redis-owners.js';

/** Test seams and host hooks of the sandbox (`start(cfg, runtime)`'s second argument). */
export interface SandboxRuntime {
  /** The backend (default: Docker at `cfg.dockerSocket`). */
  backend?: SandboxBackend;
  /** This process's instance id, as labelled on its containers (default: a new ULID). */
  instanceId?: string;
  /** Added to a run's timeout before the watchdog replaces the container, ms (default 5000). */
  watchdogGraceMs?: number;
  /** Deadline of a file operation, ms (default 60000). */
  fileCallTimeoutMs?: number;
  /** Deadline of a new container's runner `ready` line, ms (default 60000). */
  readyTimeoutMs?: number;
  /** Clock, ms (default `Date.now`). */
  now?: () => number;
}

/** The deployment id labelled on containers: a hash of the data directory. */
export function deploymentId(dataDir: string): string {
  return createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
}

/** The sandbox service (port 8006). */
export const sandboxService = defineService<SandboxConfig, SandboxRuntime>({
  name: 'sandbox',
  errors: SANDBOX_ERRORS,
  bodyLimit: SANDBOX_BODY_LIMIT_BYTES,
  async setup({ cfg, runtime, logger, app, onClose, background }) {
    if (cfg.backend !== 'docker') throw new Error(`SANDBOX_BACKEND=${String(cfg.backend)} is not available: only "docker" exists`);
    const now = runtime.now ?? Date.now;
    const backend = runtime.backend ?? new DockerBackend(cfg.dockerSocket);
    if (!runtime.backend) onClose(() => backend.close());
    const engine = new Engine({ backend, settings: { ...cfg, egressPolicy: cfg.egress?.policy ?? 'off' }, logger, now });
    const instance = runtime.instanceId ?? ulidFactory()();
    const containers = new Containers({
      backend, engine, settings: cfg, logger, deployment: deploymentId(cfg.dataDir), instance, readyTimeoutMs: runtime.readyTimeoutMs ?? 60_000, now,
    });
    onClose(() => containers.drain());

    const registers = [app.metrics];
    const calls = new client.Counter({ name: 'svc_sandbox_calls_total', help: 'Sandbox calls by operation and outcome', labelNames: ['op', 'outcome'], registers });
    const events = new client.Counter({ name: 'svc_sandbox_session_events_total', help: 'Container replacements and session removals', labelNames: ['event'], registers });

    // Issue 21 item 3: with REDIS_URL the instances of a deployment share the session registry and
    // route each session's calls to the instance holding its container.
    const selfUrl = (): string | null => selfUrlOf(cfg.instanceUrl, app.server, cfg.host);
    const owners: SessionOwners = cfg.redisUrl
      ? await openRedisOwners(cfg.redisUrl, { deployment: deploymentId(cfg.dataDir), instance, url: selfUrl, idleTimeoutSeconds: cfg.idleTimeoutSeconds, log: logger })
      : new LocalOwners(instance);
    onClose(() => owners.close());

    const state = await engine.probe();
    if (state.docker === 'ok') await containers.removeLeftovers((id) => owners.isLive(id));

    const pool = new WarmPool({ containers, size: cfg.warmPoolSize, logger });
    // The creator of a removed session is told through the agent runtime (issue 13 item 1; fails soft).
    const notifier = new NotificationsClient({ baseUrl: cfg.serviceUrls['agent-runtime'], service: 'sandbox', tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, log: logger });
    const sessions = new SessionManager({
      containers, pool, settings: cfg, logger, now, onEvent: (e) => events.inc({ event: e }),
      onRemoved: (s, why) => { void owners.release(s.key); const n = sessionRemovedNotice(s.key, s.ownerId, why, now()); if (n) notifier.notify(n); },
    });
    onClose(async () => { sessions.closeAll(); await pool.close(); });
    new client.Gauge({ name: 'svc_sandbox_sessions', help: 'Live sandbox sessions', registers, collect() { this.set(sessions.size); } });
    new client.Gauge({ name: 'svc_sandbox_warm_containers', help: 'Ready containers in the warm pool', registers, collect() { this.set(pool.count); } });

    const sandbox = new Sandbox({
      sessions, pool, engine, backend, settings: cfg, now,
      watchdogGraceMs: runtime.watchdogGraceMs ?? 5000, fileCallTimeoutMs: runtime.fileCallTimeoutMs ?? 60_000,
      onCall: (op, outcome) => calls.inc({ op, outcome }),
    });

    background('warm-pool', () => { pool.fill(); });
    background('idle-reaper', () => {
      const every = Math.min(30_000, Math.max(250, cfg.idleTimeoutSeconds * 500));
      const timer = setInterval(() => {
        const n = sessions.reap();
        if (n) logger.info({ removed: n }, 'idle sandbox sessions removed');
      }, every);
      timer.unref();
      return () => clearInterval(timer);
    });

    app.health.check(async () => {
      const s = await engine.current();
      return s.problem === null ? true : `${s.problem}; fix: ${s.fix ?? ''}`;
    });
    app.health.detail(async () => engine.readiness(await engine.current()));

    if (cfg.redisUrl) {
      ownerRouting(app, owners, instance, logger);
      background('sandbox-registry', () => { void (owners as { start?: () => Promise<void> }).start?.(); });
    }
    await app.register(runRoutes, { sandbox });
    await app.register(fileRoutes, { sandbox });
    await app.register(sessionRoutes, { sandbox, ...(cfg.redisUrl ? { owners: { registry: owners, instance } } : {}) });
  },
});
