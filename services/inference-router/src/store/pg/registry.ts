/**
 * `providers` and `role_targets` on PostgreSQL (issue 21 item 1): the twin of store/registry-store.ts.
 * Provider names are unique case-insensitively (a unique index on `lower(name)`, SQLite's NOCASE);
 * a duplicate insert throws PostgreSQL's `23505`, which the registry maps to `conflict`.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { RoleTarget } from '../../contracts.js';
import type { ProviderRow, RegistryStore, RoleRow } from '../../domain/ports.js';

type RawProvider = Omit<ProviderRow, 'models' | 'has_key'> & { models: string; has_key: number };

function toProvider(r: RawProvider): ProviderRow {
  return { ...r, models: JSON.parse(r.models) as string[], has_key: r.has_key === 1 };
}

const COLS = 'id, name, base_url, adapter, models, has_key, created_at, updated_at, probed_at';

/** PostgreSQL implementation of `RegistryStore`. */
export class PgRegistryStore implements RegistryStore {
  constructor(private readonly db: PgDb) {}

  async providers(): Promise<ProviderRow[]> {
    return (await this.db.query<RawProvider>(`SELECT ${COLS} FROM providers ORDER BY created_at, id`)).map(toProvider);
  }

  async provider(id: string): Promise<ProviderRow | null> {
    const [r] = await this.db.query<RawProvider>(`SELECT ${COLS} FROM providers WHERE id = $1`, [id]);
    return r ? toProvider(r) : null;
  }

  async providerByName(name: string): Promise<ProviderRow | null> {
    const [r] = await this.db.query<RawProvider>(`SELECT ${COLS} FROM providers WHERE lower(name) = lower($1)`, [name]);
    return r ? toProvider(r) : null;
  }

  async insert(p: ProviderRow): Promise<void> {
    await this.db.exec(`INSERT INTO providers (${COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [p.id, p.name, p.base_url, p.adapter, JSON.stringify(p.models), p.has_key ? 1 : 0, p.created_at, p.updated_at, p.probed_at]);
  }

  async update(p: ProviderRow): Promise<void> {
    await this.db.exec('UPDATE providers SET name = $2, base_url = $3, adapter = $4, models = $5, has_key = $6, updated_at = $7, probed_at = $8 WHERE id = $1',
      [p.id, p.name, p.base_url, p.adapter, JSON.stringify(p.models), p.has_key ? 1 : 0, p.updated_at, p.probed_at]);
  }

  remove(id: string): Promise<string[]> {
    return this.db.tx(async () => {
      const roles = (await this.roles()).filter((r) => r.targets.some((t) => t.provider_id === id)).map((r) => r.role);
      await this.db.exec('DELETE FROM role_targets WHERE provider_id = $1', [id]);
      await this.db.exec('DELETE FROM providers WHERE id = $1', [id]);
      // Re-number the remaining targets of the affected roles so positions stay 0..n-1.
      const at = new Date().toISOString();
      const left = await this.roles();
      for (const role of roles) await this.setRoleTx(role, left.find((r) => r.role === role)?.targets ?? [], at);
      return roles;
    });
  }

  async roles(): Promise<RoleRow[]> {
    const out = new Map<string, RoleRow>();
    const rows = await this.db.query<{ role: string; provider_id: string; model: string; updated_at: string }>('SELECT role, position, provider_id, model, updated_at FROM role_targets ORDER BY role, position');
    for (const r of rows) {
      let row = out.get(r.role);
      if (!row) { row = { role: r.role, targets: [], updated_at: r.updated_at }; out.set(r.role, row); }
      row.targets.push({ provider_id: r.provider_id, model: r.model });
      if (row.updated_at === null || r.updated_at > row.updated_at) row.updated_at = r.updated_at;
    }
    return [...out.values()];
  }

  private async setRoleTx(role: string, targets: RoleTarget[], at: string): Promise<void> {
    await this.db.exec('DELETE FROM role_targets WHERE role = $1', [role]);
    if (!targets.length) return;
    await this.db.exec(`INSERT INTO role_targets (role, position, provider_id, model, updated_at)
      SELECT $1, n - 1, p, m, $2 FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS x(p, m, n)`,
    [role, at, targets.map((t) => t.provider_id), targets.map((t) => t.model)]);
  }

  setRole(role: string, targets: RoleTarget[]): Promise<void> {
    const at = new Date().toISOString();
    return this.db.tx(() => this.setRoleTx(role, targets, at));
  }
}
