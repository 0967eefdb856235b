/**
 * The supervisor's side of the gateway's control channel (issue 19 items 1, 4;
 * services/shared/ops-control.ts): answers each `OpsControlRequest` over the host's operations.
 */
import { join } from 'node:path';
import { LOG_LEVELS, type OpsControlAnswer, type OpsControlRequest } from '../../services/shared/ops-control.js';
import type { ServiceStatus } from '../../services/shared/runtime.js';
import { BundleError, readUpdateState, stageBundle, stageRollback } from '../update/bundle.js';
import { tailLog } from './log-tail.js';
import { stackInfo, type StackInfoInput } from './stack-info.js';

/** What the control handler needs from the supervisor. */
export interface ControlHost {
  status(): ServiceStatus[];
  restartService(name: string): Promise<void>;
  setLogLevel(name: string, level: string): void;
  logLevel(name: string): string | null;
  logDir: string;
  dataDir: string;
  publicKeys: readonly string[];
  stackInput(): StackInfoInput;
  appVersion(): string;
  /** The root of the running tree (an installed version's folder when the launcher runs one). */
  appRoot(): string;
}

const fail = (status: number, code: string, message: string): OpsControlAnswer => ({ ok: false, status, code, message });

/** Answer one control request; never throws. */
export async function handleControl(host: ControlHost, req: OpsControlRequest): Promise<OpsControlAnswer> {
  try {
    const known = (name: string): boolean => host.status().some((s) => s.name === name);
    switch (req.op) {
      case 'restart': {
        if (!known(req.service)) return fail(404, 'service_not_found', `no service named "${req.service}"`);
        if (req.service === 'gateway') return fail(409, 'restart_refused', 'the gateway answers this request and cannot restart itself; restart the workstation');
        await host.restartService(req.service);
        return { ok: true, result: host.status().find((s) => s.name === req.service) };
      }
      case 'log-level': {
        if (!known(req.service)) return fail(404, 'service_not_found', `no service named "${req.service}"`);
        if (!(LOG_LEVELS as readonly string[]).includes(req.level)) return fail(400, 'invalid_request', `level must be one of ${LOG_LEVELS.join(', ')}`);
        host.setLogLevel(req.service, req.level);
        return { ok: true, result: { service: req.service, level: req.level } };
      }
      case 'logs': {
        if (!known(req.service)) return fail(404, 'service_not_found', `no service named "${req.service}"`);
        return { ok: true, result: { service: req.service, level: host.logLevel(req.service), lines: tailLog(join(host.logDir, `${req.service}.log`), req.lines) } };
      }
      case 'stack': return { ok: true, result: await stackInfo(host.stackInput()) };
      case 'deploy': {
        const s = readUpdateState(host.dataDir);
        // running_version comes from the running tree's package.json (issue 19 item 4), not from state.json.
        return { ok: true, result: {
          app_version: host.appVersion(), running_version: host.appVersion(), running_root: host.appRoot(),
          running_installed_version: s.current !== null && host.appRoot() === s.current.dir,
          deployed: s.current, previous: s.previous, pending: s.pending, last_failure: s.last_failure ?? null,
        } };
      }
      case 'update-bundle': {
        const s = await stageBundle(host.dataDir, req.file, host.publicKeys);
        return { ok: true, result: { staged: s.pending, applies: 'at the next start' } };
      }
      case 'update-rollback': {
        const s = stageRollback(host.dataDir);
        return { ok: true, result: { staged: s.pending, applies: 'at the next start' } };
      }
    }
  } catch (err) {
    if (err instanceof BundleError) return fail(err.code === 'no_previous_version' ? 409 : 400, err.code, err.message);
    return fail(500, 'internal', 'control request failed');
  }
}
