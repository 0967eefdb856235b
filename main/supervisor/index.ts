/**
 * The supervisor (DESIGN.md "Process model"): starts each of the eleven services of the spec's table
 * in a worker thread on loopback, waits for readiness, restarts a crashed worker with backoff, reports
 * state to the gateway (`GET /v1/admin/status`) and shuts everything down cleanly.
 *
 * Order: every service but the gateway starts in parallel, then the gateway (it needs their ports).
 * Shutdown runs the other way: the gateway first (no new turns; its turn events drain to audit), then
 * the other services, audit last, each closing its server and its stores.
 */
import { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import type { AnyServiceConfig } from '../../services/shared/config.js';
import type { ServiceStatus } from '../../services/shared/runtime.js';
import { serviceConfigs, type StackConfig } from '../config/index.js';
import { postToWorker, type WorkerInput, type WorkerToSupervisor } from './messages.js';
import { KeyManager } from './keys.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyPendingUpdate } from '../update/bundle.js';
import { handleControl, type ControlHost } from './control.js';
import { repoRoot } from '../config/index.js';
import { resolveGrpcPorts } from '../config/grpc.js';
import { startEgressProxy, type EgressProxy } from '../egress/squid.js';

const ENTRY = fileURLToPath(new URL('./worker-entry.js', import.meta.url));

// Workers run one full garbage collection once they are ready (worker-entry.ts): start-up leaves
// parsed-module garbage in each of eleven isolates, and collecting it keeps the idle stack small.
// The flag must be set before the isolates are created.
setFlagsFromString('--expose-gc');

/**
 * Find a free TCP port on `host` for a service asked to run on port 0. Ports come from 20000-32767,
 * below Linux's ephemeral range, so outbound connections and other `listen(0)` callers cannot take
 * one between this check and the service's own bind; `taken` avoids handing out a port twice.
 */
export async function freePort(host: string, taken: Set<number> = new Set()): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 12768);
    if (taken.has(port)) continue;
    const ok = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.unref();
      srv.once('error', () => resolve(false));
      srv.listen(port, host, () => srv.close(() => resolve(true)));
    });
    if (ok) { taken.add(port); return port; }
  }
  throw new Error(`no free port found on ${host}`);
}

interface Slot {
  name: ServiceName;
  cfg: AnyServiceConfig;
  worker: Worker | null;
  status: ServiceStatus;
  backoffMs: number;
  stableTimer: NodeJS.Timeout | null;
  restartTimer: NodeJS.Timeout | null;
  /** Set while an admin restart (issue 19 item 1) stops the worker: its exit schedules no backoff restart. */
  restartNow?: boolean;
  /** Callers of `setGrpc` waiting for the worker's `grpc-state` (issue 20). */
  grpcWaiters: Array<(port: number | null) => void>;
}

/** Options of the supervisor. */
export interface SupervisorOptions {
  /** Line-oriented diagnostics (default: stderr). */
  log?: (line: string) => void;
}

/** Runs the stack in worker threads. */
export class Supervisor {
  private readonly slots = new Map<ServiceName, Slot>();
  /** Key listing, rotation and push (issue 19 item 3). */
  private readonly keys: KeyManager;
  private stopping = false;
  /** The egress proxy (issue 19 item 6), when the policy is on. */
  private egress: EgressProxy | null = null;
  private readonly log: (line: string) => void;
  /** Gateway URL once started. */
  gatewayUrl = '';

  constructor(private readonly stack: Readonly<StackConfig>, opts: SupervisorOptions = {}) {
    this.log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
    this.keys = new KeyManager(stack.dataDir, { principalKeys: stack.principalKeys, capTokenKeys: stack.capTokenKeys, audit: stack.audit }, {
      targets: () => [...this.slots.values()].map((s) => ({ name: s.name, worker: s.worker, cfg: s.cfg })),
    });
  }

  /** Status of every service (the payload of GET /v1/admin/status). */
  status(): ServiceStatus[] {
    const now = Date.now();
    return SERVICE_NAMES.filter((n) => this.slots.has(n)).map((n) => {
      const s = this.slots.get(n)!.status;
      return { ...s, uptime_seconds: s.started_at && s.state === 'ready' ? Math.round((now - Date.parse(s.started_at)) / 1000) : 0 };
    });
  }

  /** The worker of a service (tests use it to crash one). */
  worker(name: ServiceName): Worker | null { return this.slots.get(name)?.worker ?? null; }

  /**
   * Stop (`on` false) or start again a service's gRPC server while its HTTP server keeps serving
   * (issue 20: peers fall back to HTTP). @returns the gRPC port now bound, or null (off, or no worker).
   */
  setGrpc(name: ServiceName, on: boolean): Promise<number | null> {
    const slot = this.slots.get(name);
    if (!slot?.worker) return Promise.resolve(null);
    const worker = slot.worker;
    return new Promise((resolve) => {
      slot.grpcWaiters.push(resolve);
      postToWorker(worker, { type: 'grpc', on });
    });
  }

  /**
   * Resolve ports, start every service and wait until all are ready.
   * @returns the gateway URL.
   * @throws Error when a service fails to start or is not ready within the timeout (all are stopped).
   */
  async start(): Promise<string> {
    // Issue 19 item 4: a staged update bundle or rollback applies before any service starts.
    const applied = applyPendingUpdate(this.stack.dataDir);
    if (applied) this.log(`svc: ${applied}`);
    const ports = {} as Record<ServiceName, number>;
    const taken = new Set<number>(Object.values(this.stack.ports).filter((p) => p > 0));
    for (const name of SERVICE_NAMES) ports[name] = this.stack.ports[name] || await freePort(this.stack.host, taken);
    // Issue 19 item 6: the egress proxy (Squid) runs before any service, on a loopback port of its own.
    const eg = this.stack.egress;
    if (eg.policy !== 'off') {
      this.egress = await startEgressProxy(eg, eg.port || await freePort('127.0.0.1', taken), this.log);
      this.log(this.egress.port !== null ? `svc: egress proxy (${eg.policy}) on 127.0.0.1:${this.egress.port}` : `svc: egress proxy unavailable (${eg.policy}): ${this.egress.reason ?? ''}`);
    }
    // Issue 20: gRPC ports (HTTP + 1000 when the HTTP port was fixed, else free ones).
    const grpcPorts = await resolveGrpcPorts(this.stack.grpc, this.stack.ports, ports, () => freePort(this.stack.host, taken));
    const cfgs = serviceConfigs(this.stack, ports, { proxyPort: this.egress?.port ?? null, reason: this.egress?.reason ?? null }, undefined, grpcPorts);
    for (const name of SERVICE_NAMES) {
      this.slots.set(name, {
        name, cfg: cfgs[name], worker: null, backoffMs: 0, stableTimer: null, restartTimer: null, grpcWaiters: [],
        status: { name, state: 'starting', port: ports[name], url: cfgs[name].serviceUrls[name], started_at: null, uptime_seconds: 0, restarts: 0, last_error: null },
      });
    }
    try {
      await Promise.all(SERVICE_NAMES.filter((n) => n !== 'gateway').map((n) => this.spawn(this.slots.get(n)!)));
      await this.spawn(this.slots.get('gateway')!);
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.gatewayUrl = cfgs.gateway.serviceUrls.gateway;
    this.broadcast();
    return this.gatewayUrl;
  }

  private spawn(slot: Slot): Promise<void> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(ENTRY, {
        workerData: { service: slot.name, cfg: slot.cfg } satisfies WorkerInput, stdout: false, stderr: false,
        // A small young generation per isolate keeps eleven idle services inside the memory budget;
        // the gateway, on every request's path, gets more room to avoid frequent scavenges.
        resourceLimits: { maxYoungGenerationSizeMb: slot.name === 'gateway' ? 8 : 2 },
      });
      slot.worker = worker;
      let ready = false;
      const timer = setTimeout(() => {
        if (!ready) {
          reject(new Error(`${slot.name} was not ready within ${this.stack.supervisor.readyTimeoutMs} ms`));
          void worker.terminate();
        }
      }, this.stack.supervisor.readyTimeoutMs);
      worker.on('message', (msg: WorkerToSupervisor) => {
        if (msg.type === 'ready') {
          ready = true;
          clearTimeout(timer);
          slot.status = { ...slot.status, state: 'ready', started_at: new Date().toISOString(), last_error: null };
          slot.stableTimer = setTimeout(() => { slot.backoffMs = 0; }, 60_000);
          slot.stableTimer.unref();
          this.broadcast();
          resolve();
        } else if (msg.type === 'key-admin') {
          // Issue 19 item 3: /v1/admin/secrets (./keys.ts).
          void this.keys.handle(msg.req).then((answer) => { postToWorker(worker, { type: 'key-admin-answer', id: msg.id, answer }); });
        } else if (msg.type === 'grpc-state') {
          for (const w of slot.grpcWaiters.splice(0)) w(msg.port);
        } else if (msg.type === 'keys-applied') {
          this.keys.applied(slot.name, msg.seq);
        } else if (msg.type === 'control') {
          void handleControl(this.controlHost(), msg.req).then((answer) => { postToWorker(worker, { type: 'control-answer', id: msg.id, answer }); });
        } else if (msg.type === 'failed') {
          slot.status = { ...slot.status, last_error: msg.message ?? 'failed' };
          if (!ready) { clearTimeout(timer); reject(new Error(`${slot.name} failed to start: ${msg.message}`)); }
        }
      });
      worker.on('error', (err) => {
        slot.status = { ...slot.status, last_error: err.message };
        this.log(`svc: ${slot.name} worker error: ${err.message}`);
        if (!ready) { clearTimeout(timer); reject(new Error(`${slot.name} failed to start: ${err.message}`)); }
      });
      worker.on('exit', (code) => {
        if (slot.worker === worker) slot.worker = null;
        if (slot.stableTimer) { clearTimeout(slot.stableTimer); slot.stableTimer = null; }
        if (!ready) { clearTimeout(timer); reject(new Error(`${slot.name} exited with code ${code} before it was ready`)); return; }
        if (this.stopping) { slot.status = { ...slot.status, state: 'stopped', started_at: null }; return; }
        if (slot.restartNow) return;
        this.scheduleRestart(slot, code);
      });
    });
  }

  private scheduleRestart(slot: Slot, code: number): void {
    slot.backoffMs = Math.min(slot.backoffMs ? slot.backoffMs * 2 : 250, this.stack.supervisor.maxRestartBackoffMs);
    slot.status = { ...slot.status, state: 'restarting', started_at: null, last_error: slot.status.last_error ?? `exited with code ${code}` };
    this.log(`svc: ${slot.name} exited (code ${code}); restarting in ${slot.backoffMs} ms`);
    this.broadcast();
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      if (this.stopping) return;
      slot.status = { ...slot.status, restarts: slot.status.restarts + 1, state: 'starting' };
      this.spawn(slot).catch((err: Error) => {
        this.log(`svc: ${slot.name} restart failed: ${err.message}`);
        if (!this.stopping && !slot.worker) this.scheduleRestart(slot, 1);
      });
    }, slot.backoffMs);
  }

  /**
   * Apply rotated audit signing keys from a freshly loaded configuration (SIGHUP re-reads
   * AUDIT_SIGNING_KEY_FILE / AUDIT_SIGNING_KEY_PREVIOUS_FILE): the running audit worker signs with
   * them from its next insert or seal, and a restarted worker starts with them.
   */
  rotateAuditKeys(next: Readonly<StackConfig>): void {
    const slot = this.slots.get('audit');
    if (!slot || slot.cfg.service !== 'audit') return;
    const keys = { signingKey: next.audit.signingKey, keyVersion: next.audit.keyVersion, previousSigningKey: next.audit.previousSigningKey, previousKeyVersion: next.audit.previousKeyVersion, retiredKeys: [...next.audit.retiredKeys] };
    slot.cfg = { ...slot.cfg, ...keys };
    if (slot.worker) postToWorker(slot.worker, { type: 'audit-keys', keys });
  }

  /**
   * Restart one service now (issue 19 item 1: `POST /v1/admin/services/{name}/restart`): a clean
   * shutdown, then a new worker; resolves once it is ready again.
   * @throws Error when it does not come back.
   */
  async restartService(name: ServiceName): Promise<void> {
    const slot = this.slots.get(name);
    if (!slot || this.stopping) throw new Error(`no running service ${name}`);
    if (slot.restartTimer) { clearTimeout(slot.restartTimer); slot.restartTimer = null; }
    const worker = slot.worker;
    if (worker) {
      slot.restartNow = true;
      slot.status = { ...slot.status, state: 'restarting' };
      this.broadcast();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { void worker.terminate(); }, this.stack.supervisor.shutdownTimeoutMs);
        worker.once('exit', () => { clearTimeout(timer); resolve(); });
        postToWorker(worker, { type: 'shutdown' });
      });
      slot.restartNow = false;
    }
    slot.status = { ...slot.status, restarts: slot.status.restarts + 1, state: 'starting', started_at: null };
    await this.spawn(slot);
  }

  private controlHost(): ControlHost {
    const root = repoRoot();
    const cfgOf = (n: ServiceName): Record<string, unknown> => (this.slots.get(n)?.cfg ?? {}) as unknown as Record<string, unknown>;
    const appVersion = (): string => { try { return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version; } catch { return '0.0.0'; } };
    return {
      status: () => this.status(),
      restartService: (n) => this.restartService(n as ServiceName),
      setLogLevel: (n, level) => {
        const slot = this.slots.get(n as ServiceName);
        if (!slot) return;
        slot.cfg = { ...slot.cfg, logLevel: level };
        if (slot.worker) postToWorker(slot.worker, { type: 'log-level', level });
      },
      logLevel: (n) => this.slots.get(n as ServiceName)?.cfg.logLevel ?? null,
      logDir: join(this.stack.dataDir, 'logs'),
      dataDir: this.stack.dataDir,
      publicKeys: this.stack.update.publicKeys,
      appVersion,
      appRoot: () => root,
      stackInput: () => {
        const k = cfgOf('knowledge'); const r = cfgOf('inference-router'); const sb = cfgOf('sandbox');
        const emb = String(k['embeddingModel'] ?? '');
        const modelDirs = [
          ...((k['modelDirs'] as string[] | undefined) ?? []).map((d) => ({ service: 'knowledge', dir: join(d, emb) })),
          ...(typeof r['modelsDir'] === 'string' ? [{ service: 'inference-router', dir: join(r['modelsDir'], 'llm') }] : []),
        ];
        return {
          root, dataDir: this.stack.dataDir, modelDirs,
          sandboxImage: String(sb['image'] ?? 'svc-sandbox:latest'),
          dockerSocket: typeof sb['dockerSocket'] === 'string' ? sb['dockerSocket'] : null,
        };
      },
    };
  }

  private broadcast(): void {
    const gw = this.slots.get('gateway')?.worker;
    if (gw) postToWorker(gw, { type: 'status', services: this.status() });
  }

  private async stopOne(slot: Slot): Promise<void> {
    if (slot.restartTimer) { clearTimeout(slot.restartTimer); slot.restartTimer = null; }
    if (slot.stableTimer) { clearTimeout(slot.stableTimer); slot.stableTimer = null; }
    const worker = slot.worker;
    if (!worker) { slot.status = { ...slot.status, state: 'stopped' }; return; }
    slot.status = { ...slot.status, state: 'stopping' };
    await new Promise<void>((resolve) => {
      // A worker that already exited emits no second 'exit' (and `terminate()` on it emits none either),
      // so the terminate path resolves on its own promise: stop() must never wait forever.
      const timer = setTimeout(() => {
        this.log(`svc: ${slot.name} did not stop within ${this.stack.supervisor.shutdownTimeoutMs} ms; terminating`);
        worker.terminate().then(() => resolve(), () => resolve());
      }, this.stack.supervisor.shutdownTimeoutMs);
      worker.once('exit', () => { clearTimeout(timer); resolve(); });
      if (worker.threadId === -1) { clearTimeout(timer); resolve(); return; }
      postToWorker(worker, { type: 'shutdown' });
    });
    slot.status = { ...slot.status, state: 'stopped', started_at: null };
  }

  /** Stop every service: gateway first, audit last. Safe to call twice. */
  async stop(): Promise<void> {
    this.stopping = true;
    const gw = this.slots.get('gateway');
    if (gw) await this.stopOne(gw);
    await Promise.all([...this.slots.values()].filter((s) => s.name !== 'gateway' && s.name !== 'audit').map((s) => this.stopOne(s)));
    const audit = this.slots.get('audit');
    if (audit) await this.stopOne(audit);
    await this.egress?.stop();
  }
}
