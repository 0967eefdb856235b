/**
 * Service states for `GET /v1/admin/status` when no supervisor runs the stack: each service's
 * `GET /readyz` is probed directly (spec: "Health"; DESIGN.md "Process model and ports").
 */
import { request } from 'undici';
import type { ServiceStatus } from '../../../shared/runtime.js';
import { SERVICE_NAMES, type ServiceName } from '../../../shared/services.js';

/** Probe timeout per service, ms (headers and body). */
const PROBE_TIMEOUT_MS = 1000;

/**
 * Probe every service once, in parallel. The gateway reports itself `ready`; another service is
 * `ready` on 200, `starting` on any other answer and `failed` when it cannot be reached within 1 s.
 * @param urls base URL of every service.
 */
export async function probeServices(urls: Readonly<Record<ServiceName, string>>): Promise<ServiceStatus[]> {
  return Promise.all(SERVICE_NAMES.map(async (name): Promise<ServiceStatus> => {
    const url = urls[name];
    let state: ServiceStatus['state'] = 'failed';
    let readiness: string | null = null;
    if (name === 'gateway') state = 'ready';
    else {
      readiness = await probeReadiness(url);
      state = readiness === null ? 'ready' : readiness === UNREACHABLE ? 'failed' : 'starting';
    }
    return { name, state, port: Number(new URL(url).port), url, started_at: null, uptime_seconds: 0, restarts: 0, last_error: null, readiness };
  }));
}

/** The readiness reason of a service that cannot be reached within the probe timeout. */
export const UNREACHABLE = 'unreachable';

/**
 * Ask one service's `GET /readyz` (1 s timeout).
 * @returns null when it answers 200; else the reason its 503 body gives (`{error: <reason>, code:
 *   "not_ready"}`, at most 500 characters), `HTTP <status>` without one, or `unreachable`.
 */
export async function probeReadiness(url: string): Promise<string | null> {
  try {
    const r = await request(`${url}/readyz`, { headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS });
    if (r.statusCode === 200) { await r.body.dump(); return null; }
    const body = await r.body.json().catch(() => null) as { error?: unknown } | null;
    return typeof body?.error === 'string' && body.error ? body.error.slice(0, 500) : `HTTP ${r.statusCode}`;
  } catch {
    return UNREACHABLE;
  }
}
