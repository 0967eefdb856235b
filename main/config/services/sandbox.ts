/**
 * Environment settings of the sandbox service (issue 12; spec "Code sandbox", the sandbox rows of
 * "Limits", "Sandbox backends"), merged into its config slice by main/config. It returns
 * `SandboxSettings` (services/sandbox/src/contracts.ts); the defaults live here only.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | SANDBOX_BACKEND | docker | where sessions run; only `docker` exists (any other value stops the start with a ConfigError) |
 * | SANDBOX_IMAGE | svc-sandbox:latest | image of every session container (`npm run sandbox:image` builds it) |
 * | SANDBOX_RUNTIME | auto | container runtime: `runsc` (gVisor), `runc`, or `auto` (runsc when the engine lists it, else runc) |
 * | SANDBOX_IDLE_TIMEOUT | 900 | seconds a session may stay idle before its container is removed |
 * | SANDBOX_MAX_SESSIONS | 50 | live sessions at once; at the cap the longest-idle one is evicted, and when all are busy a new one gets 503 `session_limit_reached` |
 * | SANDBOX_MEM_LIMIT | 512m | memory of a session container (swap included), bytes with an optional k, m or g suffix (powers of 1024) |
 * | SANDBOX_CPUS | 1 | CPU quota of a session container (fractions allowed) |
 * | SANDBOX_PIDS_LIMIT | 128 | processes and threads of a session container |
 * | SANDBOX_NETWORK_ENABLED | false | give sessions a network (default: loopback only); networked sessions run under runc |
 * | SANDBOX_GPU_ENABLED | false | pass the host's GPUs to sessions (Docker device requests); GPU sessions run under runc |
 * | SANDBOX_GPU_NETWORK_ENABLED | false | give GPU sessions a network; needs SANDBOX_GPU_ENABLED |
 * | SANDBOX_MAX_TIMEOUT | 300 | cap of a call's `timeout`, seconds (a call's default is 30) |
 * | SANDBOX_WARM_POOL | 2 | started, ready containers kept for new sessions (0 turns the pool off) |
 * | DOCKER_HOST | unix:///var/run/docker.sock | the Docker engine: `unix:///path`, a socket path, or `tcp://host:port` |
 * | SANDBOX_INSTANCE_URL | (this instance's bind address and port) | where the other sandbox instances of a scaled-out deployment reach this one (issue 21 item 3: with `REDIS_URL` a call for a session another instance owns is forwarded there), e.g. `http://sandbox-2:8006` |
 */
import type { SandboxSettings } from '../../../services/sandbox/src/contracts.js';
import { ConfigError, bool, fraction, httpUrlOrNull, int, str } from '../env.js';
import type { ExtrasContext, Env } from './types.js';

/** Default engine socket. */
const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/**
 * Parse a memory size as Docker writes it: whole bytes with an optional `b`, `k`, `m` or `g`
 * suffix (powers of 1024), e.g. `512m` -> 536870912.
 * @returns bytes, or null when `raw` is not such a size.
 */
export function parseMemorySize(raw: string): number | null {
  const m = /^(\d+)\s*([bkmg])?b?$/i.exec(raw.trim());
  if (!m) return null;
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor = unit === 'g' ? 1024 ** 3 : unit === 'm' ? 1024 ** 2 : unit === 'k' ? 1024 : 1;
  const n = Number(m[1]) * factor;
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * The engine address from `DOCKER_HOST`: a socket path (`unix:///path` or `/path`) or a
 * `tcp://host:port` / `http://host:port` URL. @throws ConfigError for any other form.
 */
export function dockerEndpoint(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_DOCKER_SOCKET;
  if (raw.startsWith('unix://')) {
    const path = raw.slice('unix://'.length);
    if (path.startsWith('/')) return path;
  } else if (raw.startsWith('/')) {
    return raw;
  } else if (/^(tcp|http|https):\/\/[^/\s]+(:\d+)?\/?$/.test(raw)) {
    return raw.replace(/\/$/, '');
  }
  throw new ConfigError(`DOCKER_HOST must be unix:///path/to/docker.sock, a socket path, or tcp://host:port; got "${raw}"`);
}

/**
 * Read the sandbox settings from `env`.
 * @throws ConfigError naming the variable to set (a backend other than `docker`, a bad size,
 * `SANDBOX_GPU_NETWORK_ENABLED` without `SANDBOX_GPU_ENABLED`).
 */
export function sandboxSettings(env: Env, _ctx: ExtrasContext): SandboxSettings {
  const backend = str(env, 'SANDBOX_BACKEND') || 'docker';
  if (backend !== 'docker') {
    throw new ConfigError(`SANDBOX_BACKEND="${backend}" is not available: only "docker" exists (a remote control plane backend is not built yet); unset it or set SANDBOX_BACKEND=docker`);
  }
  const image = str(env, 'SANDBOX_IMAGE') || 'svc-sandbox:latest';
  if (!/^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/.test(image)) throw new ConfigError(`SANDBOX_IMAGE must be an image reference such as svc-sandbox:latest, got "${image}"`);
  const runtime = (str(env, 'SANDBOX_RUNTIME') || 'auto').toLowerCase();
  if (runtime !== 'auto' && runtime !== 'runsc' && runtime !== 'runc') throw new ConfigError(`SANDBOX_RUNTIME must be auto, runsc or runc, got "${runtime}"`);
  const memRaw = str(env, 'SANDBOX_MEM_LIMIT') || '512m';
  const memLimitBytes = parseMemorySize(memRaw);
  if (memLimitBytes === null || memLimitBytes < 32 * 1024 * 1024 || memLimitBytes > 1024 ** 4) {
    throw new ConfigError(`SANDBOX_MEM_LIMIT must be a size between 32m and 1024g such as 512m, got "${memRaw}"`);
  }
  const gpuEnabled = bool(env, 'SANDBOX_GPU_ENABLED', false);
  const gpuNetworkEnabled = bool(env, 'SANDBOX_GPU_NETWORK_ENABLED', false);
  if (gpuNetworkEnabled && !gpuEnabled) throw new ConfigError('SANDBOX_GPU_NETWORK_ENABLED=true needs SANDBOX_GPU_ENABLED=true');
  return {
    backend: 'docker',
    image,
    runtime,
    idleTimeoutSeconds: int(env, 'SANDBOX_IDLE_TIMEOUT', 900, 1, 7 * 24 * 3600),
    maxSessions: int(env, 'SANDBOX_MAX_SESSIONS', 50, 1, 10_000),
    memLimitBytes,
    cpus: fraction(env, 'SANDBOX_CPUS', 1, 0.01, 1024),
    pidsLimit: int(env, 'SANDBOX_PIDS_LIMIT', 128, 8, 1_000_000),
    networkEnabled: bool(env, 'SANDBOX_NETWORK_ENABLED', false),
    gpuEnabled,
    gpuNetworkEnabled,
    maxTimeoutSeconds: int(env, 'SANDBOX_MAX_TIMEOUT', 300, 1, 24 * 3600),
    warmPoolSize: int(env, 'SANDBOX_WARM_POOL', 2, 0, 100),
    dockerSocket: dockerEndpoint(str(env, 'DOCKER_HOST')),
    instanceUrl: httpUrlOrNull(env, 'SANDBOX_INSTANCE_URL', 'http://sandbox-2:8006'),
  };
}
