/**
 * The messages between the supervisor (main/supervisor/index.ts) and a service's worker thread
 * (main/supervisor/worker-entry.ts): one discriminated union on `type`, the only shapes either side
 * posts or reads.
 *
 * Worker to supervisor: `ready` (listening on `port`), `failed` (start or close failed, `message`),
 * `closed` (shut down cleanly). Supervisor to worker: `shutdown`, `status` (gateway only: the
 * status of every service for `GET /v1/admin/status`), `audit-keys` (audit only: rotated signing
 * keys, in force from the next insert or seal).
 */
import type { AnyServiceConfig } from '../../services/shared/config.js';
import type { AuditKeyMaterial, ServiceStatus } from '../../services/shared/runtime.js';
import type { OpsControlAnswer, OpsControlRequest } from '../../services/shared/ops-control.js';
import type { KeyAdminAnswer, KeyAdminRequest, KeyPush } from '../../services/shared/key-admin.js';
import type { ServiceName } from '../../services/shared/services.js';

/** Every message of the supervisor <-> worker channel. */
export type SupervisorMessage =
  | { type: 'ready'; port: number }
  | { type: 'failed'; message: string }
  | { type: 'closed' }
  | { type: 'shutdown' }
  | { type: 'status'; services: ServiceStatus[] }
  | { type: 'audit-keys'; keys: AuditKeyMaterial }
  // Issue 19 items 1, 4: the gateway's control channel (`control` up, `control-answer` down) and a log level change.
  | { type: 'control'; id: number; req: OpsControlRequest }
  | { type: 'control-answer'; id: number; answer: OpsControlAnswer }
  | { type: 'log-level'; level: string }
  // Issue 19 item 3: the gateway's key requests (`key-admin` up, `key-admin-answer` down), rotated
  // keys pushed to every worker (`keys`; audit's signing material in `audit`) and their acknowledgement.
  | { type: 'key-admin'; id: number; req: KeyAdminRequest }
  | { type: 'key-admin-answer'; id: number; answer: KeyAdminAnswer }
  | { type: 'keys'; push: KeyPush; audit?: AuditKeyMaterial }
  | { type: 'keys-applied'; seq: number }
  // Issue 20: stop or start a service's gRPC server while HTTP keeps serving (`grpc` down, `grpc-state` up).
  | { type: 'grpc'; on: boolean }
  | { type: 'grpc-state'; port: number | null };

/** The messages a worker posts to the supervisor. */
export type WorkerToSupervisor = Extract<SupervisorMessage, { type: 'ready' | 'failed' | 'closed' | 'control' | 'key-admin' | 'keys-applied' | 'grpc-state' }>;

/** The messages the supervisor posts to a worker. */
export type SupervisorToWorker = Extract<SupervisorMessage, { type: 'shutdown' | 'status' | 'audit-keys' | 'control-answer' | 'log-level' | 'key-admin-answer' | 'keys' | 'grpc' }>;

/** `workerData` of a service's worker thread. */
export interface WorkerInput {
  service: ServiceName;
  cfg: AnyServiceConfig;
}

/** Anything with `postMessage` (a `Worker`, or the worker's `parentPort`). */
interface Postable { postMessage(value: unknown): void }

/** Post `msg` to a worker (typed: only supervisor-to-worker messages). */
export function postToWorker(worker: Postable, msg: SupervisorToWorker): void {
  worker.postMessage(msg);
}

/** Post `msg` to the supervisor (typed: only worker-to-supervisor messages). */
export function postToSupervisor(port: Postable, msg: WorkerToSupervisor): void {
  port.postMessage(msg);
}
