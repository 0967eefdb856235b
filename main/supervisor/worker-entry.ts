/**
 * Worker-thread entry: runs one service's `start(cfg, runtime)` and talks to the supervisor with the
 * messages of `./messages.ts` (`ready`, `failed`, `closed` up; `shutdown`, `status` for the gateway,
 * `audit-keys` for audit down).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { AnyServiceConfig } from '../../services/shared/config.js';
import type { AuditKeyMaterial, RunningService, ServiceRuntime, ServiceStatus } from '../../services/shared/runtime.js';
import { postToSupervisor, type SupervisorToWorker, type WorkerInput } from './messages.js';

const { service, cfg } = workerData as WorkerInput;
const port = parentPort!;
let snapshot: ServiceStatus[] | null = null;
let auditKeys: AuditKeyMaterial | null = cfg.service === 'audit'
  ? { signingKey: cfg.signingKey, keyVersion: cfg.keyVersion, previousSigningKey: cfg.previousSigningKey, previousKeyVersion: cfg.previousKeyVersion }
  : null;

const runtime: ServiceRuntime = {
  ...(auditKeys ? { auditKeyMaterial: () => auditKeys! } : {}),
  statusSnapshot: () => {
    if (!snapshot) return [];
    const now = Date.now();
    return snapshot.map((s) => ({
      ...s,
      uptime_seconds: s.started_at && s.state === 'ready' ? Math.round((now - Date.parse(s.started_at)) / 1000) : 0,
    }));
  },
};

async function main(): Promise<void> {
  let running: RunningService;
  try {
    const mod = await import(`../../services/${service}/src/index.js`) as { start: (c: AnyServiceConfig, r: ServiceRuntime) => Promise<RunningService> };
    running = await mod.start(cfg, runtime);
  } catch (err) {
    postToSupervisor(port, { type: 'failed', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  port.on('message', (msg: SupervisorToWorker) => {
    if (msg.type === 'status' && msg.services) snapshot = msg.services;
    if (msg.type === 'audit-keys' && msg.keys && auditKeys) auditKeys = msg.keys;
    if (msg.type === 'shutdown') {
      running.close().then(
        () => { postToSupervisor(port, { type: 'closed' }); process.exit(0); },
        (err: unknown) => { postToSupervisor(port, { type: 'failed', message: String(err) }); process.exit(1); },
      );
    }
  });
  postToSupervisor(port, { type: 'ready', port: running.port });
  // Drop start-up garbage (module parsing, schema compilation) so the idle heap stays small.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) setTimeout(() => gc(), 1000).unref();
}

void main();
