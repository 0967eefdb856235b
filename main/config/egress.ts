/**
 * Egress control settings (issue 19 item 6; spec "Egress is off by default; the observe policy logs
 * only, the enforce policy denies by default against an allowlist"): `SVC_EGRESS_POLICY` = `off`
 * (default) | `observe` | `enforce`, `SVC_EGRESS_PORT` (the Squid loopback port, 0 = a free one),
 * `SVC_EGRESS_SQUID_BIN` (default `/usr/sbin/squid`, Debian's). Files live in `<dataDir>/egress`.
 */
import { join } from 'node:path';
import type { EgressPolicy, EgressSlice } from '../../services/shared/config.js';
import { ConfigError, int, str, type Env } from './env.js';

/** The stack's egress settings (before the proxy runs). */
export interface EgressSettings {
  policy: EgressPolicy;
  /** Requested loopback port of Squid; 0 = pick a free one at start. */
  port: number;
  squidBin: string;
  /** `<dataDir>/egress`: squid.conf, the allowlist include, the access log, the pid file. */
  dir: string;
}

/** Read the egress settings. @throws ConfigError on an unknown policy. */
export function readEgressSettings(env: Env, dataDir: string): EgressSettings {
  const raw = (str(env, 'SVC_EGRESS_POLICY') || 'off').toLowerCase();
  if (raw !== 'off' && raw !== 'observe' && raw !== 'enforce') throw new ConfigError('SVC_EGRESS_POLICY must be off, observe or enforce');
  return { policy: raw, port: int(env, 'SVC_EGRESS_PORT', 0, 0, 65_535), squidBin: str(env, 'SVC_EGRESS_SQUID_BIN') || '/usr/sbin/squid', dir: join(dataDir, 'egress') };
}

/** Paths of the egress folder (shared by main/egress and the service slices). */
export function egressPaths(dir: string): Pick<EgressSlice, 'confPath' | 'allowlistPath' | 'accessLogPath' | 'pidPath'> {
  return { confPath: join(dir, 'squid.conf'), allowlistPath: join(dir, 'allowlist.conf'), accessLogPath: join(dir, 'access.log'), pidPath: join(dir, 'squid.pid') };
}

/**
 * The slice every service receives. `proxyPort` null: the proxy is not running (`state` says why).
 */
export function egressSlice(s: EgressSettings, run: { proxyPort: number | null; reason: string | null }): EgressSlice {
  const state: EgressSlice['state'] = s.policy === 'off' ? 'off' : run.proxyPort !== null ? 'running' : 'unavailable';
  return {
    policy: s.policy, state, reason: run.reason, squidBin: s.squidBin, dir: s.dir, ...egressPaths(s.dir),
    proxyUrl: state === 'running' ? `http://127.0.0.1:${run.proxyPort}` : null,
  };
}
