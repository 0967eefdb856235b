/**
 * The ports the sandbox domain runs over (issue 12 "Sessions", "Hardening", "Sandbox backends"):
 * `SandboxBackend`, what creates, lists and removes session containers. The Docker engine implements
 * it (backend/docker.ts); a remote control plane could implement the same interface, so nothing
 * Docker-specific (dockerode types, HostConfig, multiplexed streams) crosses it.
 */
import type { Readable, Writable } from 'node:stream';
import type { ContainerRuntime } from '../contracts.js';

/** What a session container is made of: the hardening and limits a backend must apply. */
export interface ContainerSpec {
  image: string;
  /** Kernel isolation: `runsc` (gVisor) or `runc`. */
  runtime: ContainerRuntime;
  /** Labels set on the container (service, deployment, instance, tenant, session). */
  labels: Readonly<Record<string, string>>;
  /** Memory limit, bytes; swap is not added on top (memory + swap = this). */
  memoryBytes: number;
  /** CPU quota, CPUs (fractions allowed). */
  cpus: number;
  /** Most processes and threads. */
  pidsLimit: number;
  /** Give the container a network (false: loopback only). */
  network: boolean;
  /** Pass the host's GPUs through. */
  gpu: boolean;
  /** Size of the writable `/tmp` (tmpfs), bytes. */
  tmpfsBytes: number;
}

/** A started container, its runner's streams attached. */
export interface ContainerHandle {
  /** Engine id of the container. */
  id: string;
  runtime: ContainerRuntime;
  /** The runner's stdin: one JSON request per line. */
  stdin: Writable;
  /** The runner's stdout (the protocol stream, demultiplexed): one JSON answer per line; ends when the container stops. */
  stdout: Readable;
  /** The runner's stderr (diagnostics only). */
  stderr: Readable;
  /** Close the attached streams (the container keeps running until removed). */
  detach(): void;
}

/** How a container ended, as far as the backend knows. */
export interface ContainerExit {
  /** Exit status of its main process; null when still running or unknown. */
  exitCode: number | null;
  /** Killed by the memory limit. */
  oomKilled: boolean;
}

/** A container of this service the backend lists (for crash cleanup). */
export interface LabelledContainer {
  id: string;
  labels: Readonly<Record<string, string>>;
}

/** A container runtime the engine has registered, with its extra arguments. */
export interface RuntimeInfo {
  name: string;
  /** e.g. `["--network=none"]` for a runsc registered without networking. */
  args: string[];
}

/** Why a backend call failed, in terms the domain can answer with. */
export type BackendFailure = 'unavailable' | 'image_missing' | 'failed';

/** An error a backend throws: `kind` says whether the engine is gone, the image is missing, or the call failed. */
export class BackendError extends Error {
  readonly kind: BackendFailure;
  constructor(kind: BackendFailure, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'BackendError';
    this.kind = kind;
  }
}

/**
 * Where session containers run. Every method may throw `BackendError`.
 * Shaped so a remote control plane can implement it: streams, ids and labels only.
 */
export interface SandboxBackend {
  /** Backend name as `/readyz` reports it (`docker`). */
  readonly name: string;
  /** True when the engine answers. Never throws. */
  ping(): Promise<boolean>;
  /** True when `image` is present on the engine. */
  imagePresent(image: string): Promise<boolean>;
  /** Runtimes the engine has registered (`runc`, `runsc`, ...). */
  runtimes(): Promise<RuntimeInfo[]>;
  /** Create, attach and start a container; its runner's first line follows on `stdout`. */
  create(spec: ContainerSpec): Promise<ContainerHandle>;
  /** Stop and remove a container with its workspace volume; a missing container is not an error. */
  remove(id: string): Promise<void>;
  /** How a (stopped) container ended; null when it is gone. */
  exitOf(id: string): Promise<ContainerExit | null>;
  /** Containers carrying every label of `labels` (values must match). */
  list(labels: Readonly<Record<string, string>>): Promise<LabelledContainer[]>;
  /** Memory in use by a container, bytes; null when the engine does not say. */
  memoryUsage(id: string): Promise<number | null>;
  /** Release the backend's connections. */
  close(): void;
}
