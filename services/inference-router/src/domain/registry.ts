/**
 * The provider registry's operations (spec "Inference router"): register (normalise, probe, then
 * persist), update, delete, list models, map roles; and the snapshot the router serves from, rebuilt
 * every `snapshotRefreshSeconds` and at once after each change. Stores and the probe are injected.
 */
import { DomainError, invalidInput, notFoundError } from '../../../shared/kit/domain-error.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import {
  LOCAL_PROVIDER_ID, MODEL_ROLES, type AdapterKind, type InferenceErrorCode, type ModelRole, type ModelView, type ProviderInput, type ProviderPatch, type ProviderView,
  type RoleInput, type RoleTarget, type RoleView, type SecretStoreKind,
} from '../contracts.js';
import { BaseUrlError, normalizeBaseUrl } from './base-url.js';
import type { LocalModelFile, ProviderRow, RegistryStore, SecretStore, WeightHashes } from './ports.js';
import { Snapshot, type SnapshotProvider } from './snapshot.js';

/** A successful probe: the base URL to store and the model ids listed. */
export interface ProbeResult { baseUrl: string; models: string[] }

/** What the registry needs from outside. */
export interface RegistryDeps {
  store: RegistryStore;
  secrets: SecretStore;
  /** Probe a normalised base URL (throws a registration `DomainError` on failure). */
  probe: (baseUrl: string, apiKey: string | null) => Promise<ProbeResult>;
  /** Current local GGUF files ([] when the engine is off). */
  scanLocal: () => LocalModelFile[];
  hasher: WeightHashes;
}

const nextId = ulidFactory();

/** Validate a role name against the eight aliases. @throws DomainError `invalid_request` */
export function assertRole(role: string): ModelRole {
  if (!(MODEL_ROLES as readonly string[]).includes(role)) throw invalidInput(`role must be one of ${MODEL_ROLES.join(', ')}`, 'params.role');
  return role as ModelRole;
}

/** A `conflict` (409). */
function conflict(message: string): DomainError<'conflict'> { return new DomainError('conflict', message); }

/** The registry service. */
export class Registry {
  private snap: Snapshot = new Snapshot([], []);
  private local: LocalModelFile[] = [];
  /** Refreshes started; a refresh that finishes after a later one started leaves the snapshot to it. */
  private refreshes = 0;

  /** Call `refresh()` once before serving (the service does at start). */
  constructor(private readonly d: RegistryDeps) {}

  /** The snapshot requests are served from. */
  get snapshot(): Snapshot { return this.snap; }

  /** Where provider keys are kept (`os_keychain` or `encrypted_file`). */
  get secretStore(): SecretStoreKind { return this.d.secrets.kind; }

  /** Local GGUF files as of the last refresh. */
  get localModels(): LocalModelFile[] { return this.local; }

  /** Re-read providers, roles, keys and local files into a new snapshot. */
  async refresh(): Promise<void> {
    const mine = ++this.refreshes;
    const local = this.d.scanLocal();
    for (const f of local) void this.d.hasher.hash(f).catch(() => undefined);
    const rows = await this.d.store.providers();
    const roles = await this.d.store.roles();
    if (mine !== this.refreshes) return;
    this.local = local;
    const providers: SnapshotProvider[] = rows.map((p) => ({
      id: p.id, name: p.name, baseUrl: p.base_url, adapter: p.adapter, models: p.models,
      apiKey: p.has_key ? this.d.secrets.get(p.id) : null, createdAt: p.created_at,
    }));
    if (this.local.length > 0) {
      providers.push({
        id: LOCAL_PROVIDER_ID, name: LOCAL_PROVIDER_ID, baseUrl: 'local', adapter: 'local', models: this.local.map((f) => f.id), apiKey: null,
        createdAt: null, paths: new Map(this.local.map((f) => [f.id, f.path])),
      });
    }
    this.snap = new Snapshot(providers, roles);
  }

  private view(p: ProviderRow): ProviderView {
    return {
      id: p.id, name: p.name, base_url: p.base_url, adapter: p.adapter, models: p.models, kind: 'remote', has_api_key: p.has_key,
      secret_store: this.d.secrets.kind, created_at: p.created_at, updated_at: p.updated_at, probed_at: p.probed_at,
    };
  }

  private localView(): ProviderView {
    return {
      id: LOCAL_PROVIDER_ID, name: LOCAL_PROVIDER_ID, base_url: 'local', adapter: 'chat_completions', models: this.local.map((f) => f.id), kind: 'local',
      has_api_key: false, secret_store: this.d.secrets.kind, created_at: null, updated_at: null, probed_at: null,
    };
  }

  /** Every provider (the local engine last, when it has models). */
  async list(): Promise<ProviderView[]> {
    const out = (await this.d.store.providers()).map((p) => this.view(p));
    if (this.local.length > 0) out.push(this.localView());
    return out;
  }

  /** One provider. @throws DomainError `not_found` */
  async get(id: string): Promise<ProviderView> {
    if (id === LOCAL_PROVIDER_ID && this.local.length > 0) return this.localView();
    const p = await this.d.store.provider(id);
    if (!p) throw notFoundError(`no provider ${id}`);
    return this.view(p);
  }

  private normalise(raw: string): string {
    try { return normalizeBaseUrl(raw); } catch (err) {
      if (err instanceof BaseUrlError) throw invalidInput(err.message, 'body.base_url');
      throw err;
    }
  }

  /**
   * Register a provider: normalise, probe, persist, store the key.
   * @throws DomainError `invalid_request` (bad URL), `conflict` (name taken or `local`), the probe's registration codes.
   */
  async create(input: ProviderInput): Promise<ProviderView> {
    const name = input.name.trim();
    if (!name) throw invalidInput('name is empty', 'body.name');
    if (name.toLowerCase() === LOCAL_PROVIDER_ID) throw conflict('the name "local" is reserved for the embedded engine');
    if (await this.d.store.providerByName(name)) throw conflict(`a provider named "${name}" exists`);
    const base = this.normalise(input.base_url);
    const key = input.api_key ? input.api_key.trim() : null;
    const probed = await this.d.probe(base, key);
    const now = new Date().toISOString();
    const row: ProviderRow = {
      id: nextId(), name, base_url: probed.baseUrl, adapter: input.adapter, models: probed.models, has_key: key !== null,
      created_at: now, updated_at: now, probed_at: now,
    };
    if (key) await this.d.secrets.set(row.id, key);
    try { await this.d.store.insert(row); } catch (err) {
      if (key) await Promise.resolve(this.d.secrets.delete(row.id)).catch(() => undefined);
      const code = String((err as { code?: string }).code);
      if (code.startsWith('SQLITE_CONSTRAINT') || code === '23505') throw conflict(`a provider named "${name}" exists`);
      throw err;
    }
    await this.refresh();
    return this.view(row);
  }

  /**
   * Change a provider; re-probed when base_url, adapter or key change. `api_key: null` clears the key.
   * @throws DomainError `not_found`; `conflict` for `local` or a taken name; others as `create`.
   */
  async update(id: string, patch: ProviderPatch): Promise<{ view: ProviderView; reprobed: boolean }> {
    if (id === LOCAL_PROVIDER_ID) throw conflict('the local engine is configured by its models folder, not by this route');
    const cur = await this.d.store.provider(id);
    if (!cur) throw notFoundError(`no provider ${id}`);
    const name = patch.name?.trim() ?? cur.name;
    if (!name) throw invalidInput('name is empty', 'body.name');
    if (name.toLowerCase() === LOCAL_PROVIDER_ID) throw conflict('the name "local" is reserved for the embedded engine');
    const other = await this.d.store.providerByName(name);
    if (other && other.id !== id) throw conflict(`a provider named "${name}" exists`);
    const base = patch.base_url !== undefined ? this.normalise(patch.base_url) : cur.base_url;
    const keyChanged = patch.api_key !== undefined;
    const key = keyChanged ? (patch.api_key ? patch.api_key.trim() : null) : (cur.has_key ? this.d.secrets.get(id) : null);
    const adapter: AdapterKind = patch.adapter ?? cur.adapter;
    const reprobe = base !== cur.base_url || keyChanged || adapter !== cur.adapter;
    const now = new Date().toISOString();
    let row: ProviderRow = { ...cur, name, adapter, updated_at: now, has_key: key !== null };
    if (reprobe) {
      const probed = await this.d.probe(base, key);
      row = { ...row, base_url: probed.baseUrl, models: probed.models, probed_at: now };
    }
    if (keyChanged) { if (key) await this.d.secrets.set(id, key); else await this.d.secrets.delete(id); }
    await this.d.store.update(row);
    await this.refresh();
    return { view: this.view(row), reprobed: reprobe };
  }

  /** Delete a provider's key, then the provider and its role targets. @returns the roles that lost targets. @throws DomainError `not_found`, `conflict` for `local` */
  async remove(id: string): Promise<string[]> {
    if (id === LOCAL_PROVIDER_ID) throw conflict('the local engine cannot be deleted; remove its files from the models folder');
    if (!(await this.d.store.provider(id))) throw notFoundError(`no provider ${id}`);
    await this.d.secrets.delete(id);
    const roles = await this.d.store.remove(id);
    await this.refresh();
    return roles;
  }

  /** A provider's models; `refresh` re-probes a remote provider and stores the new list. @throws DomainError `not_found`, registration codes */
  async models(id: string, refresh: boolean): Promise<ModelView[]> {
    if (id === LOCAL_PROVIDER_ID && this.local.length > 0) {
      if (refresh) await this.refresh();
      return this.local.map((f) => ({ id: f.id, object: 'model', created: Math.floor(f.mtimeMs / 1000), owned_by: LOCAL_PROVIDER_ID, provider_id: LOCAL_PROVIDER_ID, weight_hash: this.d.hasher.peek(f.path) }));
    }
    let cur = await this.d.store.provider(id);
    if (!cur) throw notFoundError(`no provider ${id}`);
    if (refresh) {
      const probed = await this.d.probe(cur.base_url, cur.has_key ? this.d.secrets.get(id) : null);
      const now = new Date().toISOString();
      cur = { ...cur, models: probed.models, probed_at: now, updated_at: now };
      await this.d.store.update(cur);
      await this.refresh();
    }
    const created = Math.floor(Date.parse(cur.created_at) / 1000);
    return cur.models.map((m) => ({ id: m, object: 'model', created, owned_by: cur.name, provider_id: cur.id }));
  }

  /** Every role, configured or not. */
  async roles(): Promise<RoleView[]> {
    const rows = new Map((await this.d.store.roles()).map((r) => [r.role, r]));
    return MODEL_ROLES.map((role) => {
      const r = rows.get(role);
      return { role, configured: !!r && r.targets.length > 0, targets: r?.targets ?? [], updated_at: r?.updated_at ?? null };
    });
  }

  /** One role. @throws DomainError `invalid_request` for a name outside the eight */
  async role(role: string): Promise<RoleView> {
    const r = assertRole(role);
    return (await this.roles()).find((x) => x.role === r)!;
  }

  /**
   * Map a role to one target or an ordered list.
   * @throws DomainError `invalid_request` (unknown role or provider), `model_unknown` in its
   *   `role_mapping` situation (model not offered).
   */
  async setRole(role: string, input: RoleInput): Promise<RoleView> {
    const r = assertRole(role);
    const targets: RoleTarget[] = 'targets' in input ? input.targets : [{ provider_id: input.provider_id, model: input.model }];
    if (targets.length === 0) throw invalidInput('targets must hold at least one {provider_id, model}; DELETE the role to clear it', 'body.targets');
    const seen = new Set<string>();
    targets.forEach((t, i) => {
      const field = 'targets' in input ? `body.targets.${i}` : 'body';
      const p = this.snap.providers.get(t.provider_id) ?? (t.provider_id === LOCAL_PROVIDER_ID ? undefined : this.byName(t.provider_id));
      if (!p) throw invalidInput(`provider ${t.provider_id} is not registered`, `${field}.provider_id`);
      t.provider_id = p.id;
      if (p.models.length > 0 && !p.models.includes(t.model)) {
        throw new DomainError<InferenceErrorCode>('model_unknown', `provider ${p.name} does not offer model "${t.model}" (it lists: ${p.models.slice(0, 20).join(', ')})`, {
          situation: 'role_mapping', extra: { field: `${field}.model` },
        });
      }
      const k = `${t.provider_id}\u0000${t.model}`;
      if (seen.has(k)) throw invalidInput(`target ${p.name}/${t.model} is listed twice`, field);
      seen.add(k);
    });
    await this.d.store.setRole(r, targets.map((t) => ({ provider_id: t.provider_id, model: t.model })));
    await this.refresh();
    return this.role(r);
  }

  private byName(name: string): SnapshotProvider | undefined {
    return [...this.snap.providers.values()].find((p) => p.name.toLowerCase() === name.toLowerCase());
  }

  /** Clear a role. @throws DomainError `invalid_request` for a name outside the eight */
  async clearRole(role: string): Promise<void> {
    await this.d.store.setRole(assertRole(role), []);
    await this.refresh();
  }
}
