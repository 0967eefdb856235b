/**
 * The control channel from the gateway's worker to the supervisor (issue 19 items 1, 4): the
 * gateway-owned admin routes (`/v1/admin/{services/*,stack,update,deploy}`) ask the supervisor,
 * which runs every service, to restart one, change its log level, tail its log, report the stack's
 * versions, and stage or roll back an update bundle. Node-free shapes only.
 */

/** Log levels a service accepts (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** One of `LOG_LEVELS`. */
export type LogLevel = typeof LOG_LEVELS[number];

/** A request on the control channel. */
export type OpsControlRequest =
  | { op: 'restart'; service: string }
  | { op: 'log-level'; service: string; level: LogLevel }
  | { op: 'logs'; service: string; lines: number }
  | { op: 'stack' }
  | { op: 'deploy' }
  | { op: 'update-bundle'; file: string }
  | { op: 'update-rollback' };

/**
 * The answer: `ok` with the op's JSON result, or an error with a stable `code` (e.g.
 * `service_not_found`, `bad_signature`, `bad_bundle`, `no_previous_version`) and an HTTP status.
 */
export type OpsControlAnswer =
  | { ok: true; result: unknown }
  | { ok: false; code: string; message: string; status: number };

/** Sends a control request to the supervisor and resolves with its answer. */
export type OpsControl = (req: OpsControlRequest) => Promise<OpsControlAnswer>;
