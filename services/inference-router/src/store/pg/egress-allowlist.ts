/** `egress_allowlist` on PostgreSQL (issue 21 item 1): the twin of store/egress-allowlist-store.ts (destinations unique and matched case-insensitively). */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { EgressRule } from '../../contracts.js';
import type { EgressAllowlistStore } from '../../domain/egress.js';

/** PostgreSQL implementation of `EgressAllowlistStore`. */
export class PgEgressAllowlistStore implements EgressAllowlistStore {
  constructor(private readonly db: PgDb) {}

  list(): Promise<EgressRule[]> {
    return this.db.query<EgressRule>('SELECT id, destination, created_at, created_by FROM egress_allowlist ORDER BY created_at, id');
  }

  async insert(r: EgressRule): Promise<void> {
    await this.db.exec('INSERT INTO egress_allowlist (id, destination, created_at, created_by) VALUES ($1, $2, $3, $4)', [r.id, r.destination, r.created_at, r.created_by]);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM egress_allowlist WHERE id = $1', [id])) > 0;
  }

  async byDestination(destination: string): Promise<EgressRule | null> {
    const [r] = await this.db.query<EgressRule>('SELECT id, destination, created_at, created_by FROM egress_allowlist WHERE lower(destination) = lower($1)', [destination]);
    return r ?? null;
  }
}
