/**
 * What backs the sandbox right now (issue 12 "Kernel isolation", "Image"): whether the engine
 * answers, whether the image is there, and which runtime new sessions run under, with the command
 * that fixes what is missing. `/readyz` reports it (`SandboxReadiness`), and a call that needs a
 * container is refused with 503 `sandbox_unavailable` / `sandbox_image_missing` and a `fix` field
 * while it is not usable.
 *
 * Runtime choice (`chooseRuntime`): `SANDBOX_RUNTIME=auto` picks gVisor's `runsc` when the engine
 * lists it, else `runc`. A runsc registered with `--network=none` (as this platform registers it)
 * cannot give a container a network, so networked sessions run under runc, and so do GPU sessions
 * (runsc would need its GPU proxy); the choice and its reason are logged.
 */
import type { Logger } from 'pino';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { ContainerRuntime, SandboxErrorCode, SandboxReadiness, SandboxSettings } from '../contracts.js';
import type { RuntimeInfo, SandboxBackend } from './ports.js';

/** The command that brings the engine back. */
export const FIX_DOCKER = 'start dockerd (sudo dockerd &) or set DOCKER_HOST';
/** The command that builds the image. */
export const FIX_IMAGE = 'npm run sandbox:image';
/** The command that registers gVisor when `SANDBOX_RUNTIME=runsc` asks for it. */
export const FIX_RUNSC = 'register gVisor with the engine (sudo runsc install, then reload dockerd) or set SANDBOX_RUNTIME=runc';

/** How long a probe result is trusted while the engine is usable, ms. */
const FRESH_OK_MS = 5000;
/** How long a probe result is trusted while it is not, ms (a recovery is noticed quickly). */
const FRESH_FAILED_MS = 1000;

/** The runtime new sessions use and whether they get a network. */
export interface RuntimeChoice {
  runtime: ContainerRuntime;
  /** Sessions get a network (false: loopback only). */
  network: boolean;
  /** Why the choice differs from the plain reading of the settings, for the log; null when it does not. */
  note: string | null;
  /** Why sessions cannot run at all (runsc asked for and not registered), else null. */
  problem: string | null;
}

/**
 * Choose the runtime of new sessions from the settings and the engine's registered runtimes.
 * Pure (unit-tested).
 */
export function chooseRuntime(s: Pick<SandboxSettings, 'runtime' | 'networkEnabled' | 'gpuEnabled' | 'gpuNetworkEnabled' | 'egressPolicy'>, registered: readonly RuntimeInfo[]): RuntimeChoice {
  const choice = chooseByEngine(s, registered);
  // Egress control (issue 19 item 6) fails closed for containers: their traffic is not routed through the proxy.
  if (choice.network && s.egressPolicy && s.egressPolicy !== 'off') {
    return { ...choice, network: false, note: `egress control is on (${s.egressPolicy}): sandbox sessions get no network, since their traffic cannot go through the workstation's proxy` };
  }
  return choice;
}

function chooseByEngine(s: Pick<SandboxSettings, 'runtime' | 'networkEnabled' | 'gpuEnabled' | 'gpuNetworkEnabled'>, registered: readonly RuntimeInfo[]): RuntimeChoice {
  const wantsNetwork = s.networkEnabled || (s.gpuEnabled && s.gpuNetworkEnabled);
  const runsc = registered.find((r) => r.name === 'runsc');
  const runscOffline = runsc !== undefined && runsc.args.some((a) => a === '--network=none' || a === '--network none');
  if (s.runtime === 'runc') return { runtime: 'runc', network: wantsNetwork, note: null, problem: null };
  if (s.runtime === 'runsc') {
    if (!runsc) return { runtime: 'runsc', network: false, note: null, problem: 'SANDBOX_RUNTIME=runsc but the engine has no runsc runtime' };
    if (wantsNetwork && runscOffline) {
      return { runtime: 'runsc', network: false, note: 'runsc is registered with --network=none: sessions get no network although one is enabled', problem: null };
    }
    return { runtime: 'runsc', network: wantsNetwork, note: null, problem: null };
  }
  if (!runsc) return { runtime: 'runc', network: wantsNetwork, note: 'gVisor (runsc) is not registered with the engine: sessions run under runc and share the host kernel', problem: null };
  if (s.gpuEnabled) return { runtime: 'runc', network: wantsNetwork, note: 'GPU sessions run under runc (runsc would need its GPU proxy)', problem: null };
  if (wantsNetwork && runscOffline) {
    return { runtime: 'runc', network: true, note: 'networked sessions run under runc: runsc is registered with --network=none', problem: null };
  }
  return { runtime: 'runsc', network: wantsNetwork, note: null, problem: null };
}

/** One probe of the engine. */
export interface EngineState {
  docker: 'ok' | 'unavailable';
  image: 'ok' | 'missing' | 'unknown';
  choice: RuntimeChoice;
  /** Why sessions cannot run, else null. */
  problem: string | null;
  /** The error code a call answers while `problem` is set. */
  code: Extract<SandboxErrorCode, 'sandbox_unavailable' | 'sandbox_image_missing'> | null;
  /** The command that fixes `problem`, else null. */
  fix: string | null;
  /** `now()` of the probe, ms. */
  checkedAt: number;
}

/** What `Engine` needs. */
export interface EngineDeps {
  backend: SandboxBackend;
  settings: SandboxSettings;
  logger: Logger;
  now?: () => number;
}

/** Probes the backend and says whether, and how, sessions can run. */
export class Engine {
  private state: EngineState;
  private probing: Promise<EngineState> | null = null;
  private readonly now: () => number;
  private lastLogged = '';

  constructor(private readonly deps: EngineDeps) {
    this.now = deps.now ?? Date.now;
    const choice = chooseRuntime(deps.settings, []);
    this.state = { docker: 'unavailable', image: 'unknown', choice, problem: 'the engine has not been probed yet', code: 'sandbox_unavailable', fix: FIX_DOCKER, checkedAt: -Infinity };
  }

  /** The last probe (possibly stale). */
  get last(): EngineState { return this.state; }

  /** Probe the engine now (one probe at a time; concurrent callers share it). */
  probe(): Promise<EngineState> {
    this.probing ??= this.doProbe().finally(() => { this.probing = null; });
    return this.probing;
  }

  /** The state, probed again when the last probe is older than it may be trusted. */
  async current(): Promise<EngineState> {
    const age = this.now() - this.state.checkedAt;
    if (age <= (this.state.problem === null ? FRESH_OK_MS : FRESH_FAILED_MS)) return this.state;
    return this.probe();
  }

  /** Forget the last probe (a backend call just failed), so the next `current()` probes again. */
  invalidate(): void { this.state = { ...this.state, checkedAt: -Infinity }; }

  /**
   * The state when sessions can run.
   * @throws DomainError `sandbox_unavailable` / `sandbox_image_missing` with a `fix` field.
   */
  async usable(): Promise<EngineState> {
    const s = await this.current();
    if (s.problem !== null) throw new DomainError<SandboxErrorCode>(s.code ?? 'sandbox_unavailable', `the sandbox cannot run: ${s.problem}`, { extra: { fix: s.fix } });
    return s;
  }

  /** The `/readyz` fields of `state` (default: the last probe). */
  readiness(state: EngineState = this.state): SandboxReadiness {
    return {
      backend: this.deps.backend.name, docker: state.docker, image: state.image, runtime: state.choice.runtime,
      network: state.choice.network ? 'enabled' : 'none', fix: state.fix,
    };
  }

  private async doProbe(): Promise<EngineState> {
    const { backend, settings } = this.deps;
    const checkedAt = this.now();
    let next: EngineState;
    if (!await backend.ping()) {
      next = { docker: 'unavailable', image: 'unknown', choice: this.state.choice, problem: 'docker unavailable: no Docker engine answers', code: 'sandbox_unavailable', fix: FIX_DOCKER, checkedAt };
    } else {
      try {
        const [present, runtimes] = await Promise.all([backend.imagePresent(settings.image), backend.runtimes()]);
        const choice = chooseRuntime(settings, runtimes);
        if (!present) {
          next = { docker: 'ok', image: 'missing', choice, problem: `image missing: ${settings.image} is not built`, code: 'sandbox_image_missing', fix: FIX_IMAGE, checkedAt };
        } else if (choice.problem !== null) {
          next = { docker: 'ok', image: 'ok', choice, problem: choice.problem, code: 'sandbox_unavailable', fix: FIX_RUNSC, checkedAt };
        } else {
          next = { docker: 'ok', image: 'ok', choice, problem: null, code: null, fix: null, checkedAt };
        }
      } catch (err) {
        next = { docker: 'unavailable', image: 'unknown', choice: this.state.choice, problem: `docker unavailable: ${(err as Error).message}`, code: 'sandbox_unavailable', fix: FIX_DOCKER, checkedAt };
      }
    }
    this.state = next;
    this.logChange(next);
    return next;
  }

  private logChange(s: EngineState): void {
    const key = `${s.docker}|${s.image}|${s.choice.runtime}|${s.choice.network}|${s.problem ?? ''}`;
    if (key === this.lastLogged) return;
    this.lastLogged = key;
    if (s.problem !== null) this.deps.logger.warn({ docker: s.docker, image: s.image, fix: s.fix }, `sandbox not usable: ${s.problem}`);
    else this.deps.logger.info({ runtime: s.choice.runtime, network: s.choice.network, note: s.choice.note }, 'sandbox backend ready');
  }
}
