/**
 * The egress allowlist table (`egress_allowlist` in `<dbDir>/inference-router.sqlite`; issue 19 item 6).
 */
import { openDb, type Db } from '../../../shared/db/open.js';
import type { EgressRule } from '../contracts.js';
import type { EgressAllowlistStore } from '../domain/egress.js';

/** SQLite implementation of `EgressAllowlistStore`. */
export class SqliteEgressAllowlistStore implements EgressAllowlistStore {
  private readonly db: Db;

  /** Open (create, migrate) the router's database. */
  constructor(dbDir: string, migrationsDir: string) {
    this.db = openDb({ dbDir, store: 'inference-router', migrationsDir, vec: false });
  }

  list(): EgressRule[] {
    return this.db.prepare('SELECT id, destination, created_at, created_by FROM egress_allowlist ORDER BY created_at, id').all() as EgressRule[];
  }

  insert(r: EgressRule): void {
    this.db.prepare('INSERT INTO egress_allowlist (id, destination, created_at, created_by) VALUES (?, ?, ?, ?)').run(r.id, r.destination, r.created_at, r.created_by);
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM egress_allowlist WHERE id = ?').run(id).changes > 0;
  }

  byDestination(destination: string): EgressRule | null {
    return (this.db.prepare('SELECT id, destination, created_at, created_by FROM egress_allowlist WHERE destination = ?').get(destination) as EgressRule | undefined) ?? null;
  }

  /** Close the connection. */
  close(): void { this.db.close(); }
}
