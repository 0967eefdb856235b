/**
 * The observability store: SQLite `<dbDir>/observability.sqlite` (migrations `migrations/observability/`)
 * or, with `cfg.database` set, the `observability` schema of PostgreSQL (`migrations/observability/pg/`,
 * issue 21 item 1): generation records, the refreshed price list, budgets and trace spans, one file
 * per table group. The only code of this service that opens a database.
 */
import type { AsyncStoreHandle } from '../../../shared/db/async-store.js';
import { openPgStore } from '../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../shared/db/pg/settings.js';
import { openStore } from '../../../shared/db/store.js';
import type { BudgetStore, GenerationStore, PriceStore, SpanStore } from '../domain/ports.js';
import { SqliteBudgetStore } from './budgets.js';
import { SqliteGenerationStore } from './generations.js';
import { PgBudgetStore } from './pg/budgets.js';
import { PgGenerationStore } from './pg/generations.js';
import { PgPriceStore } from './pg/prices.js';
import { PgSpanStore } from './pg/spans.js';
import { SqlitePriceStore } from './prices.js';
import { SqliteSpanStore } from './spans.js';

/** All tables of the observability store plus the engine-neutral handle (`txAsync`, `ready`, `isOpen`, `close`); both openers answer it. */
export type ObsStore = Readonly<{ generations: GenerationStore; prices: PriceStore; budgets: BudgetStore; spans: SpanStore }> & AsyncStoreHandle;

/** Open (create, migrate) the SQLite store under `dbDir` with the repository's `migrations` folder. */
export function openObsStore(opts: { dbDir: string; migrationsDir: string }): ObsStore {
  return openStore({ dbDir: opts.dbDir, store: 'observability', migrationsDir: opts.migrationsDir, vec: false }, (db) => ({
    generations: new SqliteGenerationStore(db), prices: new SqlitePriceStore(db),
    budgets: new SqliteBudgetStore(db), spans: new SqliteSpanStore(db),
  }));
}

/** Connect and migrate the `observability` schema. @throws Error when the server cannot be reached or a migration fails. */
export function openPgObsStore(settings: PgSettings, migrationsDir: string): Promise<ObsStore> {
  return openPgStore({ settings, service: 'observability', migrationsDir }, (db) => ({
    generations: new PgGenerationStore(db), prices: new PgPriceStore(db), budgets: new PgBudgetStore(db), spans: new PgSpanStore(db),
  }));
}
