/**
 * What a service's `start(cfg, runtime)` returns and may receive (DESIGN.md "Inside a service").
 */
import type { OpsControl } from './ops-control.js';
import type { KeyAdmin } from './key-admin.js';

/** A started service. `close()` stops accepting work, finishes in-flight requests and closes stores. */
export interface RunningService {
  /** The port actually bound. */
  port: number;
  close(): Promise<void>;
  /** Change the service's log level now (issue 19 item 1: `PUT /v1/admin/services/{name}/log-level`). */
  setLogLevel?(level: string): void;
  /** The gRPC port actually bound, or null when the service runs no gRPC server (issue 20 item 2). */
  grpcPort?: number | null;
  /** Stop (`false`) or start again (`true`) the gRPC server while HTTP keeps serving; resolves to the gRPC port or null (issue 20). */
  setGrpc?(on: boolean): Promise<number | null>;
}

/** State of one service as the supervisor sees it (GET /v1/admin/status). */
export interface ServiceStatus {
  name: string;
  state: 'starting' | 'ready' | 'restarting' | 'stopping' | 'stopped' | 'failed';
  port: number;
  url: string;
  /** ISO time the current instance became ready, or null. */
  started_at: string | null;
  /** Seconds since `started_at`, 0 when not running. */
  uptime_seconds: number;
  restarts: number;
  last_error: string | null;
  /**
   * Readiness as the service's own `/readyz` says it (`GET /v1/admin/status` fills it): null when
   * ready, else its reason, which names the fix where the service knows one (e.g. the sandbox:
   * "image missing ...; fix: npm run sandbox:image"); absent where nobody probed.
   */
  readiness?: string | null;
}

/** Audit signing key material (spec: "Audit signing keys"), as main/config resolves it. */
export interface AuditKeyMaterial {
  signingKey: string;
  keyVersion: string;
  previousSigningKey: string | null;
  previousKeyVersion: string | null;
  /** Older keys kept for verification only (issue 19 item 3: every retired key verifies), newest first. */
  retiredKeys?: Array<{ version: string; key: string }>;
}

/** Hooks the host (supervisor worker entry, or a test) hands to a service. */
export interface ServiceRuntime {
  /** Latest status of every service, when a supervisor runs the stack. */
  statusSnapshot?: () => ServiceStatus[];
  /**
   * Audit keys in force now (audit only). The supervisor updates them when the operator rotates
   * keys (SIGHUP re-reads the key files), so rotation needs no restart. Returns the same object
   * until the keys change.
   */
  auditKeyMaterial?: () => AuditKeyMaterial;
  /** The supervisor's control channel (gateway only; issue 19 items 1, 4): restart, log level, log tail, stack, updates. */
  opsControl?: OpsControl;
  /** The supervisor's key channel (gateway only; issue 19 item 3): list and rotate key versions. */
  keyAdmin?: KeyAdmin;
}
