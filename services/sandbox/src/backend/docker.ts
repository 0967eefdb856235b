/**
 * The Docker engine behind `SandboxBackend` (issue 12 "Sessions", "Hardening", "Kernel isolation"),
 * through dockerode. Each session container is hardened (`hostConfigFor`): no network unless asked
 * (loopback only), every capability dropped, `no-new-privileges` with Docker's default seccomp
 * profile, a read-only root filesystem with a size-bounded tmpfs `/tmp` and an anonymous volume for
 * `/workspace` (removed with the container), user 1000:1000, a pids limit, memory with no extra swap,
 * a CPU quota, no binds, devices or Docker socket, and the runtime the service chose (`runsc` under
 * gVisor where registered). The runner's streams are attached (hijacked) before the start, so its
 * `ready` line is never missed, and demultiplexed with docker-modem's `demuxStream`.
 *
 * Two clients: one with a request timeout for control calls, one without for the attached streams
 * (an idle session's stream must not time out).
 */
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import {
  BackendError, type ContainerExit, type ContainerHandle, type ContainerSpec, type LabelledContainer, type RuntimeInfo, type SandboxBackend,
} from '../domain/ports.js';

/** Timeout of control calls (create, start, remove, list, inspect), ms. */
const CONTROL_TIMEOUT_MS = 60_000;
/** Timeout of `ping`, ms. */
const PING_TIMEOUT_MS = 3000;
/** Where the workspace volume is mounted. */
export const WORKSPACE_PATH = '/workspace';
/** The unprivileged user of the image. */
export const SANDBOX_USER = '1000:1000';

/** Connection options of dockerode for `endpoint` (a socket path or a tcp/http(s) URL, see main/config). */
export function dockerOptions(endpoint: string): Docker.DockerOptions {
  // host and socketPath are both set so docker-modem never falls back to DOCKER_HOST in process.env.
  if (endpoint.startsWith('/')) return { socketPath: endpoint, host: undefined };
  const url = new URL(endpoint.replace(/^tcp:/, 'http:'));
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return { socketPath: undefined, host: url.hostname, port: url.port || (protocol === 'https' ? '2376' : '2375'), protocol };
}

/**
 * The HostConfig of a session container: the hardening of issue 12 item 4 and the runtime of item 5.
 * Pure, so tests can check every setting without an engine.
 */
export function hostConfigFor(spec: ContainerSpec): Docker.HostConfig {
  const hc: Docker.HostConfig = {
    NetworkMode: spec.network ? 'bridge' : 'none',
    CapDrop: ['ALL'],
    // Docker's default seccomp profile stays on: no `seccomp=unconfined` here.
    SecurityOpt: ['no-new-privileges'],
    Privileged: false,
    ReadonlyRootfs: true,
    Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${spec.tmpfsBytes}` },
    Mounts: [{ Type: 'volume', Source: '', Target: WORKSPACE_PATH, ReadOnly: false }],
    Binds: [],
    Devices: [],
    PidsLimit: spec.pidsLimit,
    Memory: spec.memoryBytes,
    MemorySwap: spec.memoryBytes,
    NanoCpus: Math.round(spec.cpus * 1e9),
    IpcMode: 'private',
    Runtime: spec.runtime,
    AutoRemove: false,
    // The protocol answers go through the attached stream; nothing needs the engine's log files.
    LogConfig: { Type: 'none', Config: {} },
    Ulimits: [{ Name: 'core', Soft: 0, Hard: 0 }],
  };
  if (spec.gpu) hc.DeviceRequests = [{ Driver: '', Count: -1, Capabilities: [['gpu']], Options: {} }];
  return hc;
}

/** The create options of a session container (image, user, attached stdio, labels, HostConfig). */
export function createOptionsFor(spec: ContainerSpec): Docker.ContainerCreateOptions {
  return {
    Image: spec.image,
    User: SANDBOX_USER,
    WorkingDir: WORKSPACE_PATH,
    Hostname: 'sandbox',
    OpenStdin: true,
    // Stdin closes when the service's attached stream drops (the service died): the runner then exits.
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    NetworkDisabled: !spec.network,
    Labels: { ...spec.labels },
    HostConfig: hostConfigFor(spec),
  };
}

/** Error codes of a socket that mean "no engine answers". */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/** Map a dockerode failure to a `BackendError` (unavailable, image missing, or failed). */
export function toBackendError(err: unknown, what: string): BackendError {
  if (err instanceof BackendError) return err;
  const e = err as { code?: unknown; statusCode?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if ((typeof e?.code === 'string' && UNREACHABLE.has(e.code)) || /socket hang up|timeout/i.test(message)) {
    return new BackendError('unavailable', `${what}: the Docker engine does not answer (${message})`, { cause: err });
  }
  if (e?.statusCode === 404 && /no such image|pull access denied|not found/i.test(message)) {
    return new BackendError('image_missing', `${what}: the image is missing (${message})`, { cause: err });
  }
  return new BackendError('failed', `${what}: ${message}`, { cause: err });
}

function statusOf(err: unknown): number | undefined {
  const s = (err as { statusCode?: unknown })?.statusCode;
  return typeof s === 'number' ? s : undefined;
}

/** `SandboxBackend` on a Docker engine. */
export class DockerBackend implements SandboxBackend {
  readonly name = 'docker';
  private readonly control: Docker;
  private readonly streams: Docker;

  /** @param endpoint socket path or tcp/http(s) URL of the engine (`SandboxSettings.dockerSocket`). */
  constructor(endpoint: string) {
    this.control = new Docker({ ...dockerOptions(endpoint), timeout: CONTROL_TIMEOUT_MS });
    this.streams = new Docker({ ...dockerOptions(endpoint) });
  }

  async ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.control.ping(),
        new Promise((_r, reject) => { timer = setTimeout(() => reject(new Error('ping timeout')), PING_TIMEOUT_MS); }),
      ]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async imagePresent(image: string): Promise<boolean> {
    try {
      await this.control.getImage(image).inspect();
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw toBackendError(err, 'image inspect');
    }
  }

  async runtimes(): Promise<RuntimeInfo[]> {
    try {
      const info = await this.control.info() as { Runtimes?: Record<string, { runtimeArgs?: unknown }> };
      return Object.entries(info.Runtimes ?? {}).map(([name, r]) => ({
        name, args: Array.isArray(r?.runtimeArgs) ? r.runtimeArgs.filter((a): a is string => typeof a === 'string') : [],
      }));
    } catch (err) {
      throw toBackendError(err, 'engine info');
    }
  }

  async create(spec: ContainerSpec): Promise<ContainerHandle> {
    let id: string;
    try {
      id = (await this.control.createContainer(createOptionsFor(spec))).id;
    } catch (err) {
      throw toBackendError(err, 'container create');
    }
    try {
      const raw = await this.streams.getContainer(id).attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true }) as NodeJS.ReadWriteStream & PassThrough;
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      this.streams.modem.demuxStream(raw, stdout, stderr);
      const finish = (): void => { stdout.end(); stderr.end(); };
      raw.on('end', finish);
      raw.on('close', finish);
      raw.on('error', (err: Error) => { stdout.destroy(err); stderr.destroy(); });
      await this.control.getContainer(id).start();
      return { id, runtime: spec.runtime, stdin: raw, stdout, stderr, detach: () => { raw.destroy(); } };
    } catch (err) {
      await this.remove(id).catch(() => undefined);
      throw toBackendError(err, 'container start');
    }
  }

  async remove(id: string): Promise<void> {
    try {
      await this.control.getContainer(id).remove({ force: true, v: true });
    } catch (err) {
      const s = statusOf(err);
      if (s === 404 || s === 409) return; // gone, or its removal is already under way
      throw toBackendError(err, 'container remove');
    }
  }

  async exitOf(id: string): Promise<ContainerExit | null> {
    try {
      const info = await this.control.getContainer(id).inspect();
      return { exitCode: info.State.Running ? null : info.State.ExitCode, oomKilled: info.State.OOMKilled === true };
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw toBackendError(err, 'container inspect');
    }
  }

  async list(labels: Readonly<Record<string, string>>): Promise<LabelledContainer[]> {
    try {
      const found = await this.control.listContainers({ all: true, filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } });
      return found.map((c) => ({ id: c.Id, labels: { ...(c.Labels ?? {}) } }));
    } catch (err) {
      throw toBackendError(err, 'container list');
    }
  }

  async memoryUsage(id: string): Promise<number | null> {
    try {
      const s = await this.control.getContainer(id).stats({ stream: false, 'one-shot': true }) as { memory_stats?: { usage?: number; stats?: Record<string, number> } };
      const m = s.memory_stats;
      if (!m || typeof m.usage !== 'number') return null;
      // As `docker stats` shows it: usage without the inactive page cache (cgroup v2, then v1 names).
      const inactive = m.stats?.inactive_file ?? m.stats?.total_inactive_file ?? 0;
      return Math.max(0, m.usage - inactive);
    } catch {
      return null;
    }
  }

  close(): void {
    // dockerode keeps no pooled connections of its own; the attached streams close with their sessions.
  }
}
