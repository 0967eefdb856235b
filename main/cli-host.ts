/**
 * Run some of the stack's services in this process (issue 21 item 2: `npm run serve -- --service
 * <name>`; main/cli.ts parses the flags). Each service starts from the same `start(cfg, runtime)`
 * its index.ts exports and the same configuration slices the supervisor cuts (`serviceConfigs`),
 * with the peers this process does not run called where `SVC_<SERVICE>_URL` says (main/config/
 * scale-out.ts). Start order and shutdown order are the supervisor's: every other service first,
 * the gateway last; on stop the gateway first, audit last.
 *
 * What the supervisor adds and a `--service` process does not: worker restarts (the container
 * runtime or systemd restarts the process), the admin control and key channels (`/v1/admin/
 * services/...`, `/v1/admin/secrets` answer that the stack is not supervised), the egress proxy,
 * and staged updates or restores.
 */
import type { AnyServiceConfig } from '../services/shared/config.js';
import type { RunningService, ServiceRuntime, ServiceStatus } from '../services/shared/runtime.js';
import { SERVICE_NAMES, type ServiceName } from '../services/shared/services.js';
import { serviceConfigs, type StackConfig } from './config/index.js';
import { freePort } from './supervisor/index.js';

/** A service this process runs. */
interface Hosted { name: ServiceName; cfg: AnyServiceConfig; running: RunningService | null; status: ServiceStatus }

/** Options of `ServiceHost`. */
export interface ServiceHostOptions {
  log?: (line: string) => void;
}

/** Runs the named services in-process. */
export class ServiceHost {
  private readonly hosted = new Map<ServiceName, Hosted>();
  private readonly log: (line: string) => void;

  /**
   * @param stack the loaded configuration (main/config `loadStackConfig`).
   * @param names the services to run here (at least one).
   */
  constructor(private readonly stack: Readonly<StackConfig>, readonly names: readonly ServiceName[], opts: ServiceHostOptions = {}) {
    if (names.length === 0) throw new Error('no service to run');
    this.log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
  }

  /** Status of the services of this process (the gateway's `/v1/admin/status` when it runs here). */
  status(): ServiceStatus[] {
    const now = Date.now();
    return [...this.hosted.values()].map(({ status: s }) => ({ ...s, uptime_seconds: s.started_at && s.state === 'ready' ? Math.round((now - Date.parse(s.started_at)) / 1000) : 0 }));
  }

  /** The base URL of a hosted service (its own loopback address). */
  url(name: ServiceName): string {
    const h = this.hosted.get(name);
    if (!h) throw new Error(`${name} does not run in this process`);
    return h.status.url;
  }

  /**
   * Resolve ports, start every named service, other services in parallel, then the gateway.
   * @returns the hosted services' URLs by name.
   * @throws Error when one fails to start (the started ones are stopped).
   */
  async start(): Promise<Partial<Record<ServiceName, string>>> {
    const local = new Set(this.names);
    const bindHost = this.stack.scaleOut.serviceBindHost;
    const taken = new Set<number>(Object.values(this.stack.ports).filter((p) => p > 0));
    const ports = {} as Record<ServiceName, number>;
    for (const name of SERVICE_NAMES) {
      ports[name] = this.stack.ports[name] || (local.has(name) ? await freePort(bindHost ?? this.stack.host, taken) : 1);
    }
    const peers: Partial<Record<ServiceName, string>> = {};
    for (const [name, url] of Object.entries(this.stack.scaleOut.peerUrls) as Array<[ServiceName, string]>) if (!local.has(name)) peers[name] = url;
    const cfgs = serviceConfigs(this.stack, ports, { proxyPort: null, reason: this.stack.egress.policy === 'off' ? null : 'the egress proxy runs only under the desktop supervisor' }, peers);
    for (const name of SERVICE_NAMES.filter((n) => local.has(n))) {
      const cfg = { ...cfgs[name], ...(bindHost ? { host: bindHost } : {}) } as AnyServiceConfig;
      this.hosted.set(name, {
        name, cfg, running: null,
        status: { name, state: 'starting', port: ports[name], url: `http://127.0.0.1:${ports[name]}`, started_at: null, uptime_seconds: 0, restarts: 0, last_error: null },
      });
    }
    try {
      await Promise.all([...this.hosted.values()].filter((h) => h.name !== 'gateway').map((h) => this.startOne(h)));
      const gw = this.hosted.get('gateway');
      if (gw) await this.startOne(gw);
    } catch (err) {
      await this.stop();
      throw err;
    }
    return Object.fromEntries([...this.hosted.values()].map((h) => [h.name, h.status.url]));
  }

  private async startOne(h: Hosted): Promise<void> {
    const runtime: ServiceRuntime = { statusSnapshot: () => this.status() };
    if (h.cfg.service === 'audit') {
      const a = h.cfg;
      const keys = { signingKey: a.signingKey, keyVersion: a.keyVersion, previousSigningKey: a.previousSigningKey, previousKeyVersion: a.previousKeyVersion, retiredKeys: a.retiredKeys ?? [] };
      runtime.auditKeyMaterial = () => keys;
    }
    const timeoutMs = this.stack.supervisor.readyTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      const mod = await import(`../services/${h.name}/src/index.js`) as { start: (c: AnyServiceConfig, r: ServiceRuntime) => Promise<RunningService> };
      h.running = await Promise.race([
        mod.start(h.cfg, runtime),
        new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${h.name} was not ready within ${timeoutMs} ms`)), timeoutMs); }),
      ]);
    } catch (err) {
      h.status = { ...h.status, state: 'failed', last_error: err instanceof Error ? err.message : String(err) };
      throw new Error(`${h.name} failed to start: ${h.status.last_error}`);
    } finally {
      clearTimeout(timer);
    }
    h.status = { ...h.status, state: 'ready', port: h.running.port, started_at: new Date().toISOString() };
  }

  private async stopOne(h: Hosted): Promise<void> {
    const r = h.running;
    if (!r) { h.status = { ...h.status, state: 'stopped' }; return; }
    h.status = { ...h.status, state: 'stopping' };
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([r.close(), new Promise<void>((resolve) => {
        timer = setTimeout(() => { this.log(`svc: ${h.name} did not stop within ${this.stack.supervisor.shutdownTimeoutMs} ms`); resolve(); }, this.stack.supervisor.shutdownTimeoutMs);
      })]);
    } catch (err) {
      this.log(`svc: ${h.name} stop failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
    }
    h.running = null;
    h.status = { ...h.status, state: 'stopped', started_at: null };
  }

  /** Stop: the gateway first, audit last. Safe to call twice. */
  async stop(): Promise<void> {
    const gw = this.hosted.get('gateway');
    if (gw) await this.stopOne(gw);
    await Promise.all([...this.hosted.values()].filter((h) => h.name !== 'gateway' && h.name !== 'audit').map((h) => this.stopOne(h)));
    const audit = this.hosted.get('audit');
    if (audit) await this.stopOne(audit);
  }
}
