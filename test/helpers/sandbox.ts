/**
 * Sandbox test scaffolding (issue 12): a sandbox config built the way main/config builds it (common
 * slice, then `sandboxSettings` of the given environment, then overrides), whether a Docker engine
 * answers, and the containers this service labelled.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { sandboxSettings } from '../../main/config/services/sandbox.js';
import type { SandboxConfig } from '../../services/sandbox/src/contracts.js';
import { REPO_ROOT, commonConfig } from './service-configs.js';

/** The engine the tests use (DOCKER_HOST is not consulted: the platform's default socket). */
export const DOCKER_SOCKET = '/var/run/docker.sock';

/**
 * A sandbox config on a fresh temp data dir: `sandboxSettings(env)` then `overrides`. The warm pool
 * is off unless the test asks for it.
 */
export function sandboxConfig(opts: { tenantId: string; env?: Record<string, string> }, overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  const dir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'sandbox-test-'));
  return {
    ...commonConfig('sandbox', dir, opts.tenantId),
    ...sandboxSettings({ SANDBOX_WARM_POOL: '0', ...opts.env }, { dataDir: dir, repoRoot: REPO_ROOT, production: false }),
    ...overrides,
  };
}

/** A dockerode client on the test engine. */
export function dockerClient(): Docker {
  return new Docker({ socketPath: DOCKER_SOCKET });
}

/** Why sandbox tests cannot run here (no engine answers), or null when they can. */
export async function dockerMissing(): Promise<string | null> {
  try {
    await dockerClient().ping();
    return null;
  } catch (err) {
    return `no Docker engine answers at ${DOCKER_SOCKET} (${(err as Error).message}): start dockerd to run the sandbox tests`;
  }
}

/** Ids of the containers labelled `org.svc.sandbox=1` with every label of `labels`. */
export async function labelledContainers(labels: Record<string, string> = {}): Promise<string[]> {
  const filters = { label: ['org.svc.sandbox=1', ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)] };
  return (await dockerClient().listContainers({ all: true, filters })).map((c) => c.Id);
}

/** Runtimes the test engine lists (`docker info` Runtimes), e.g. `['io.containerd.runc.v2', 'runc', 'runsc']`. */
export async function engineRuntimes(): Promise<string[]> {
  const info = (await dockerClient().info()) as { Runtimes?: Record<string, unknown> };
  return Object.keys(info.Runtimes ?? {});
}

/** Why the escape set cannot run under `runtime` here (no engine, or the engine does not list it), or null when it can. */
export async function runtimeMissing(runtime: 'runc' | 'runsc'): Promise<string | null> {
  const noEngine = await dockerMissing();
  if (noEngine) return noEngine;
  const listed = await engineRuntimes();
  if (listed.includes(runtime)) return null;
  return `the Docker engine does not list the ${runtime} runtime (it lists: ${listed.join(', ') || 'none'}); `
    + (runtime === 'runsc' ? 'install gVisor (apt-get install runsc), run `runsc install` and reload dockerd to run this set under runsc' : 'the engine has no runc');
}
