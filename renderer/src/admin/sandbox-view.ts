/**
 * The admin Sandbox panel's pure rules (issue 12 items 5, 8, 9): durations and memory in words,
 * what the sandbox's readiness says (runtime, Docker, image, network) and what to do when the
 * sandbox cannot run. No DOM; unit-tested in test/unit/renderer.
 */
import type { SandboxReadiness } from '../api/types';

/** Seconds as `42 s`, `3 min`, `1.5 h`, `2.1 d`. */
export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s) || s < 0) return '—';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 129_600) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} d`;
}

/** Bytes as `512 MB` (binary units, the way Docker's limits read). */
export function formatMemory(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n) || n < 0) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(0)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(n < 10 * 1024 ** 2 ? 1 : 0)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/** `used / limit (pct%)`, or `— / limit` when the engine did not say. */
export function memoryText(used: number | null, limit: number): string {
  if (used === null) return `— / ${formatMemory(limit)}`;
  const pct = limit > 0 ? Math.round((used / limit) * 100) : null;
  return `${formatMemory(used)} / ${formatMemory(limit)}${pct !== null ? ` (${pct}%)` : ''}`;
}

/** One line of the readiness card: its label, the value, and whether it is fine (null: neither). */
export interface ReadinessRow { label: string; value: string; ok: boolean | null }

/** The readiness fields in words (issue 12 "Kernel isolation": runsc is gVisor, runc shares the host kernel). */
export function readinessRows(r: Partial<SandboxReadiness>): ReadinessRow[] {
  const rows: ReadinessRow[] = [];
  if (r.runtime) rows.push({ label: 'Runtime', value: r.runtime === 'runsc' ? 'runsc (gVisor: own kernel)' : r.runtime === 'runc' ? 'runc (shares the host kernel)' : String(r.runtime), ok: r.runtime === 'runsc' ? true : null });
  if (r.docker) rows.push({ label: 'Docker engine', value: r.docker === 'ok' ? 'ok' : 'unavailable', ok: r.docker === 'ok' });
  if (r.image) rows.push({ label: 'Sandbox image', value: r.image, ok: r.image === 'ok' ? true : r.image === 'missing' ? false : null });
  if (r.network) rows.push({ label: 'Network', value: r.network === 'none' ? 'none (loopback only)' : 'enabled', ok: r.network === 'none' ? true : null });
  if (r.backend) rows.push({ label: 'Backend', value: r.backend, ok: null });
  return rows;
}

/** True when the readiness says sessions can run (Docker answers and the image is there). */
export function sandboxReady(r: Partial<SandboxReadiness> | null | undefined): boolean {
  return !!r && r.docker === 'ok' && r.image !== 'missing';
}

/**
 * What to run when the sandbox cannot: the readiness's own `fix`, else the one the error code
 * implies (`sandbox_image_missing`: build the image), else null.
 */
export function fixOf(r: Partial<SandboxReadiness> | null | undefined, errorCode: string | null): string | null {
  if (r && typeof r.fix === 'string' && r.fix) return r.fix;
  if (errorCode === 'sandbox_image_missing' || r?.image === 'missing') return 'npm run sandbox:image';
  return null;
}

/** The readiness fields of a `/readyz` body (other keys, e.g. `status` and `service`, left out); null when it has none. */
export function readinessOf(body: unknown): Partial<SandboxReadiness> | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of ['backend', 'docker', 'image', 'runtime', 'network', 'fix'] as const) if (k in b) out[k] = b[k];
  return Object.keys(out).length ? out as Partial<SandboxReadiness> : null;
}
