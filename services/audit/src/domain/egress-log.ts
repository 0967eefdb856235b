/**
 * One Squid access-log line (the `svcegress` logformat of main/egress/squid.ts) as an audit row
 * (issue 19 item 6; spec "Egress audit event detail" and the `egress.allow` / `egress.deny` rule).
 * Pure.
 */
import type { AppendInput } from './chain-writer.js';

/** The verdict by the spec's rule: DENIED result code, or HTTP 403 or 407 -> deny; else allow. */
export function egressVerdict(proxyCode: string, httpStatus: number | null): 'allow' | 'deny' {
  return proxyCode.includes('DENIED') || httpStatus === 403 || httpStatus === 407 ? 'deny' : 'allow';
}

const nul = (v: string | undefined): string | null => (v === undefined || v === '' || v === '-' ? null : v);
const num = (v: string | undefined): number | null => { const s = nul(v); if (s === null) return null; const n = Number(s); return Number.isFinite(n) ? n : null; };

/**
 * Parse `line` (no newline) into the row to append for `tenantId`, or null when it is not a
 * `svcegress` line (13 tab-separated fields) or names no request. `proxy_ts` is Squid's epoch seconds.milliseconds
 * rendered as RFC 3339.
 */
export function egressRowOf(line: string, tenantId: string): AppendInput | null {
  const f = line.split('\t');
  if (f.length !== 13) return null;
  const [ts, clientIp, localPort, method, host, port, proxyCode, status, bytes, hierarchy, username, service, path] = f;
  // A connection that sent no request (e.g. the supervisor's port check) is not an egress request.
  if (nul(method) === null || nul(host) === null) return null;
  const tsNum = num(ts);
  const httpStatus = num(status);
  const hostText = (host ?? '').includes(':') && !(host ?? '').startsWith('[') ? `[${host}]` : (host ?? '');
  const destination = `${hostText}:${nul(port) ?? '-'}`;
  const verdict = egressVerdict(proxyCode ?? '', httpStatus);
  const detail = {
    service: nul(service) ?? 'unknown',
    destination,
    path: path === 'strict' ? 'strict' : 'allow-all',
    verdict,
    bytes: num(bytes),
    method: method ?? '',
    client_ip: clientIp ?? '',
    proxy_code: proxyCode ?? '',
    http_status: httpStatus,
    local_port: num(localPort),
    hierarchy: hierarchy ?? '',
    proxy_ts: tsNum === null ? null : new Date(Math.round(tsNum * 1000)).toISOString(),
    username: nul(username),
  };
  return {
    tenant_id: tenantId, user_id: 'service:egress', action: `egress.${verdict}`, resource_type: 'egress_destination', resource_id: destination,
    detail_type: 'proxy_access_log', detail,
  };
}
