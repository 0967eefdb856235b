/**
 * The gateway's PostgreSQL store (issue 21 item 1): schema `gateway`, migrations
 * `migrations/gateway/pg/`. Its one table keeps the backup schedule's sealed box (`ScheduleBox`), so
 * a gateway on PostgreSQL writes no schedule file; the sealing key stays where `sealedSchedule` keeps it.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { PgSettings } from '../../../../shared/db/pg/settings.js';
import { openPgStore, type PgStore } from '../../../../shared/db/pg/store.js';
import type { ScheduleBox } from '../backup-schedule.js';

/** `ScheduleBox` over the one row of `backup_schedule`. */
export class PgScheduleBox implements ScheduleBox {
  constructor(private readonly db: PgDb, private readonly clock: () => number = Date.now) {}

  async read(): Promise<string | null> {
    return (await this.db.query<{ sealed: string }>('SELECT sealed FROM backup_schedule WHERE id = 1'))[0]?.sealed ?? null;
  }

  async write(box: string | null): Promise<void> {
    if (box === null) { await this.db.exec('DELETE FROM backup_schedule WHERE id = 1'); return; }
    await this.db.exec(`INSERT INTO backup_schedule (id, sealed, updated_at) VALUES (1, $1, $2)
      ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`, [box, this.clock()]);
  }
}

/** The gateway's PostgreSQL store facade. */
export type PgGatewayStore = PgStore<{ scheduleBox: PgScheduleBox }>;

/**
 * Connect, migrate and build the gateway's store on PostgreSQL.
 * @throws Error when the server cannot be reached or a migration fails.
 */
export function openPgGatewayStore(settings: PgSettings, migrationsDir: string): Promise<PgGatewayStore> {
  return openPgStore({ settings, service: 'gateway', migrationsDir }, (db) => ({ scheduleBox: new PgScheduleBox(db) }));
}
