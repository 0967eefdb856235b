/**
 * Worker-thread entry: runs one service's `start(cfg, runtime)` and talks to the supervisor with the
 * messages of `./messages.ts` (`ready`, `failed`, `closed` up; `shutdown`, `status` for the gateway,
 * `audit-keys` for audit down).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { AnyServiceConfig } from '../../services/shared/config.js';
import type { AuditKeyMaterial, RunningService, ServiceRuntime, ServiceStatus } from '../../services/shared/runtime.js';
import type { OpsControlAnswer, OpsControlRequest } from '../../services/shared/ops-control.js';
import type { KeyAdminAnswer, KeyAdminRequest } from '../../services/shared/key-admin.js';
import { postToSupervisor, type SupervisorToWorker, type WorkerInput } from './messages.js';

const { service, cfg } = workerData as WorkerInput;
const port = parentPort!;
let snapshot: ServiceStatus[] | null = null;
let auditKeys: AuditKeyMaterial | null = cfg.service === 'audit'
  ? { signingKey: cfg.signingKey, keyVersion: cfg.keyVersion, previousSigningKey: cfg.previousSigningKey, previousKeyVersion: cfg.previousKeyVersion, retiredKeys: cfg.retiredKeys ?? [] }
  : null;

// Issue 19 items 1, 4: the gateway asks the supervisor over this channel; answers come back by id.
let controlSeq = 0;
const controlWaiting = new Map<number, (a: OpsControlAnswer) => void>();
const opsControl = (req: OpsControlRequest): Promise<OpsControlAnswer> => new Promise((resolve) => {
  const id = ++controlSeq;
  controlWaiting.set(id, resolve);
  postToSupervisor(port, { type: 'control', id, req });
});

// Issue 19 item 3: the gateway's key requests to the supervisor (`/v1/admin/secrets`), answered by id.
let keySeq = 0;
const keyWaiting = new Map<number, (a: KeyAdminAnswer) => void>();
const keyAdmin = (req: KeyAdminRequest): Promise<KeyAdminAnswer> => new Promise((resolve) => {
  const id = ++keySeq;
  keyWaiting.set(id, resolve);
  postToSupervisor(port, { type: 'key-admin', id, req });
});

/**
 * Apply rotated keys in place: every service holds `cfg.principalKeys` / `cfg.capTokenKeys` by
 * reference (signers take the first, verifiers try each), so replacing the arrays' contents puts
 * the new keys in force without a restart; audit's signing material is swapped whole.
 */
function applyKeys(msg: Extract<SupervisorToWorker, { type: 'keys' }>): void {
  cfg.principalKeys.splice(0, cfg.principalKeys.length, ...msg.push.principalKeys);
  cfg.capTokenKeys.splice(0, cfg.capTokenKeys.length, ...msg.push.capTokenKeys);
  if (msg.audit && auditKeys) auditKeys = msg.audit;
  postToSupervisor(port, { type: 'keys-applied', seq: msg.push.seq });
}

const runtime: ServiceRuntime = {
  ...(service === 'gateway' ? { keyAdmin } : {}),
  ...(auditKeys ? { auditKeyMaterial: () => auditKeys! } : {}),
  ...(service === 'gateway' ? { opsControl } : {}),
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
    if (msg.type === 'log-level') running.setLogLevel?.(msg.level);
    if (msg.type === 'grpc') {
      void (running.setGrpc?.(msg.on) ?? Promise.resolve(null)).then(
        (p) => postToSupervisor(port, { type: 'grpc-state', port: p }),
        () => postToSupervisor(port, { type: 'grpc-state', port: null }),
      );
    }
    if (msg.type === 'keys') applyKeys(msg);
    if (msg.type === 'key-admin-answer') { keyWaiting.get(msg.id)?.(msg.answer); keyWaiting.delete(msg.id); }
    if (msg.type === 'control-answer') { controlWaiting.get(msg.id)?.(msg.answer); controlWaiting.delete(msg.id); }
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
