/**
 * The router's in-memory snapshot of the registry (spec "Limits": re-read every 30 s, and at once
 * after an admin change) and model resolution: a role alias, `provider/model`, or a bare model id.
 * Pure: built from plain rows.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import { LOCAL_PROVIDER_ID, MODEL_ROLES, type AdapterKind, type InferenceErrorCode, type ModelRole, type RoleTarget } from '../contracts.js';
import type { Backend } from './upstream.js';

/** A provider as the snapshot holds it (with its key, never shown). */
export interface SnapshotProvider {
  id: string;
  name: string;
  baseUrl: string;
  adapter: AdapterKind | 'local';
  models: string[];
  apiKey: string | null;
  createdAt: string | null;
  /** Local models: id -> GGUF path. */
  paths?: Map<string, string>;
}

/** How a request's `model` resolved. */
export interface Resolution {
  /** The role alias, when `model` named one. */
  role: ModelRole | null;
  /** Backends in try order. */
  backends: Backend[];
}

/** The registry as of one read. */
export class Snapshot {
  readonly providers: Map<string, SnapshotProvider>;
  readonly roles: Map<string, RoleTarget[]>;

  constructor(providers: SnapshotProvider[], roles: Array<{ role: string; targets: RoleTarget[] }>) {
    this.providers = new Map(providers.map((p) => [p.id, p]));
    this.roles = new Map(roles.filter((r) => r.targets.length > 0).map((r) => [r.role, r.targets]));
  }

  /** The backend for one target, or null when its provider is gone or no longer lists the model. */
  backend(t: RoleTarget): Backend | null {
    const p = this.providers.get(t.provider_id);
    if (!p) return null;
    if (p.adapter === 'local') {
      const path = p.paths?.get(t.model);
      return path ? { providerId: p.id, providerName: p.name, adapter: 'local', baseUrl: 'local', apiKey: null, model: t.model, modelPath: path } : null;
    }
    if (p.models.length > 0 && !p.models.includes(t.model)) return null;
    return { providerId: p.id, providerName: p.name, adapter: p.adapter, baseUrl: p.baseUrl, apiKey: p.apiKey, model: t.model };
  }

  /**
   * Resolve a request's `model`.
   * @throws DomainError `role_not_configured` (alias with no targets), `role_no_backend` (no
   *   target usable), `model_unknown` in its `chat` situation (no provider offers the model).
   */
  resolve(model: string): Resolution {
    if ((MODEL_ROLES as readonly string[]).includes(model)) {
      const targets = this.roles.get(model);
      if (!targets) throw new DomainError<InferenceErrorCode>('role_not_configured', `model role "${model}" is not mapped to any provider model; an admin sets it with PUT /v1/admin/inference/roles/${model}`);
      const backends = targets.map((t) => this.backend(t)).filter((b): b is Backend => b !== null);
      if (backends.length === 0) throw new DomainError<InferenceErrorCode>('role_no_backend', `model role "${model}" maps only to providers or models that are no longer available`);
      return { role: model as ModelRole, backends };
    }
    const slash = model.indexOf('/');
    if (slash > 0) {
      const prefix = model.slice(0, slash).toLowerCase();
      const p = [...this.providers.values()].find((x) => x.id.toLowerCase() === prefix || x.name.toLowerCase() === prefix);
      if (p) {
        const b = this.backend({ provider_id: p.id, model: model.slice(slash + 1) });
        if (b) return { role: null, backends: [b] };
      }
    }
    // Remote providers first (registry order), then the local engine.
    const ordered = [...this.providers.values()].sort((a, b) => Number(a.id === LOCAL_PROVIDER_ID) - Number(b.id === LOCAL_PROVIDER_ID));
    for (const p of ordered) {
      if (p.models.includes(model)) {
        const b = this.backend({ provider_id: p.id, model });
        if (b) return { role: null, backends: [b] };
      }
    }
    throw new DomainError<InferenceErrorCode>('model_unknown', `no provider offers model "${model}"; GET /v1/models lists the models and roles`, { situation: 'chat' });
  }
}

/**
 * Cooldown of failing backends (as LiteLLM does): a backend (provider + model) that fails is skipped
 * for `cooldownMs`, unless every candidate is cooling down (then all are tried in order anyway).
 */
export class Cooldowns {
  private readonly until = new Map<string, number>();
  constructor(private readonly cooldownMs: number, private readonly now: () => number = Date.now) {}

  private key(b: { providerId: string; model: string }): string { return `${b.providerId}\u0000${b.model}`; }

  /** Mark a backend failed now. */
  fail(b: { providerId: string; model: string }): void { if (this.cooldownMs > 0) this.until.set(this.key(b), this.now() + this.cooldownMs); }

  /** Clear a backend's cooldown (it served). */
  ok(b: { providerId: string; model: string }): void { if (this.until.size) this.until.delete(this.key(b)); }

  /** End of the cooldown (ms since epoch) when cooling down, else null. */
  coolingUntil(b: { providerId: string; model: string }): number | null {
    const t = this.until.get(this.key(b));
    if (t === undefined) return null;
    if (t <= this.now()) { this.until.delete(this.key(b)); return null; }
    return t;
  }

  /** Candidates in try order: healthy ones first (in order), cooling ones only if none is healthy. */
  order<T extends { providerId: string; model: string }>(bs: T[]): T[] {
    const healthy = bs.filter((b) => this.coolingUntil(b) === null);
    return healthy.length > 0 ? healthy : bs;
  }
}
