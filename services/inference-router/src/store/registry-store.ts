/**
 * The provider registry (`<dbDir>/inference-router.sqlite`, tables `providers` and `role_targets`):
 * providers and ordered role targets. The only SQLite code of the router; API keys live in the
 * secret store, never here.
 */
import { openDb, type Db } from '../../../shared/db/open.js';
import type { RoleTarget } from '../contracts.js';
import type { ProviderRow, RegistryStore, RoleRow } from '../domain/ports.js';

type RawProvider = Omit<ProviderRow, 'models' | 'has_key'> & { models: string; has_key: number };

/** SQLite implementation of `RegistryStore`. */
export class SqliteRegistryStore implements RegistryStore {
  private readonly db: Db;
  private readonly allProviders;
  private readonly oneProvider;
  private readonly byName;
  private readonly insertProvider;
  private readonly updateProvider;
  private readonly deleteProvider;
  private readonly allTargets;
  private readonly deleteRole;
  private readonly insertTarget;
  private readonly deleteTargetsOf;

  /** Open (create, migrate) `<dbDir>/inference-router.sqlite`. */
  constructor(dbDir: string, migrationsDir: string) {
    this.db = openDb({ dbDir, store: 'inference-router', migrationsDir, vec: false });
    this.allProviders = this.db.prepare('SELECT * FROM providers ORDER BY created_at, id');
    this.oneProvider = this.db.prepare('SELECT * FROM providers WHERE id = ?');
    this.byName = this.db.prepare('SELECT * FROM providers WHERE name = ?');
    this.insertProvider = this.db.prepare(`INSERT INTO providers (id, name, base_url, adapter, models, has_key, created_at, updated_at, probed_at)
      VALUES (@id, @name, @base_url, @adapter, @models, @has_key, @created_at, @updated_at, @probed_at)`);
    this.updateProvider = this.db.prepare(`UPDATE providers SET name = @name, base_url = @base_url, adapter = @adapter, models = @models,
      has_key = @has_key, updated_at = @updated_at, probed_at = @probed_at WHERE id = @id`);
    this.deleteProvider = this.db.prepare('DELETE FROM providers WHERE id = ?');
    this.allTargets = this.db.prepare('SELECT role, position, provider_id, model, updated_at FROM role_targets ORDER BY role, position');
    this.deleteRole = this.db.prepare('DELETE FROM role_targets WHERE role = ?');
    this.insertTarget = this.db.prepare('INSERT INTO role_targets (role, position, provider_id, model, updated_at) VALUES (?, ?, ?, ?, ?)');
    this.deleteTargetsOf = this.db.prepare('DELETE FROM role_targets WHERE provider_id = ?');
  }

  /** Every provider, oldest first. */
  providers(): ProviderRow[] { return (this.allProviders.all() as RawProvider[]).map(toProvider); }

  /** One provider, or null. */
  provider(id: string): ProviderRow | null {
    const r = this.oneProvider.get(id) as RawProvider | undefined;
    return r ? toProvider(r) : null;
  }

  /** A provider by name (case-insensitive), or null. */
  providerByName(name: string): ProviderRow | null {
    const r = this.byName.get(name) as RawProvider | undefined;
    return r ? toProvider(r) : null;
  }

  /** Insert a provider. @throws on a duplicate name (SQLITE_CONSTRAINT_UNIQUE). */
  insert(p: ProviderRow): void { this.insertProvider.run(fromProvider(p)); }

  /** Replace a provider's fields. */
  update(p: ProviderRow): void { this.updateProvider.run(fromProvider(p)); }

  /** Delete a provider and every role target naming it. @returns the roles that lost targets. */
  remove(id: string): string[] {
    const roles = this.roles().filter((r) => r.targets.some((t) => t.provider_id === id)).map((r) => r.role);
    const tx = this.db.transaction(() => {
      this.deleteTargetsOf.run(id);
      this.deleteProvider.run(id);
      // Re-number the remaining targets of the affected roles so positions stay 0..n-1.
      for (const role of roles) {
        const left = this.roles().find((r) => r.role === role)?.targets ?? [];
        this.setRoleTx(role, left, new Date().toISOString());
      }
    });
    tx();
    return roles;
  }

  /** Every role that has targets. */
  roles(): RoleRow[] {
    const out = new Map<string, RoleRow>();
    for (const r of this.allTargets.all() as Array<{ role: string; provider_id: string; model: string; updated_at: string }>) {
      let row = out.get(r.role);
      if (!row) { row = { role: r.role, targets: [], updated_at: r.updated_at }; out.set(r.role, row); }
      row.targets.push({ provider_id: r.provider_id, model: r.model });
      if (row.updated_at === null || r.updated_at > row.updated_at) row.updated_at = r.updated_at;
    }
    return [...out.values()];
  }

  private setRoleTx(role: string, targets: RoleTarget[], at: string): void {
    this.deleteRole.run(role);
    targets.forEach((t, i) => this.insertTarget.run(role, i, t.provider_id, t.model, at));
  }

  /** Replace a role's ordered targets (empty clears it). */
  setRole(role: string, targets: RoleTarget[]): void {
    const at = new Date().toISOString();
    this.db.transaction(() => this.setRoleTx(role, targets, at))();
  }

  /** The open database (the facade's transaction, store/router-store.ts). */
  get database(): Db { return this.db; }

  /** Close the database. */
  close(): void { this.db.close(); }
}

function toProvider(r: RawProvider): ProviderRow {
  return { ...r, models: JSON.parse(r.models) as string[], has_key: r.has_key === 1 };
}

function fromProvider(p: ProviderRow): RawProvider {
  return { ...p, models: JSON.stringify(p.models), has_key: p.has_key ? 1 : 0 };
}
