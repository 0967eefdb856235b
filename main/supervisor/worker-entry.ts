/**
 * Worker-thread entry: runs one service's `start(cfg, runtime)` and talks to the supervisor.
 *
 * Messages to the parent: `{type: 'ready', port}`, `{type: 'failed', message}`, `{type: 'closed'}`.
 * Messages from the parent: `{type: 'shutdown'}`, `{type: 'status', services}` (gateway only),
 * `{type: 'audit-keys', keys}` (audit only: rotated signing keys, in force from the next insert).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { AnyServiceConfig } from '../../services/shared/config.js';
import type { AuditKeyMaterial, RunningService, ServiceRuntime, ServiceStatus } from '../../services/shared/runtime.js';

interface WorkerInput { service: string; cfg: AnyServiceConfig }

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
    port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  port.on('message', (msg: { type: string; services?: ServiceStatus[]; keys?: AuditKeyMaterial }) => {
    if (msg.type === 'status' && msg.services) snapshot = msg.services;
    if (msg.type === 'audit-keys' && msg.keys && auditKeys) auditKeys = msg.keys;
    if (msg.type === 'shutdown') {
      running.close().then(
        () => { port.postMessage({ type: 'closed' }); process.exit(0); },
        (err: unknown) => { port.postMessage({ type: 'failed', message: String(err) }); process.exit(1); },
      );
    }
  });
  port.postMessage({ type: 'ready', port: running.port });
  // Drop start-up garbage (module parsing, schema compilation) so the idle heap stays small.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) setTimeout(() => gc(), 1000).unref();
}

void main();
