/**
 * The observability store (`<dbDir>/observability.sqlite`, migrations `migrations/observability/`):
 * generation records, the refreshed price list, budgets and trace spans, one file per table group.
 * The only code of this service that opens the database.
 */
import { openStore, type Store } from '../../../shared/db/store.js';
import type { BudgetStore, GenerationStore, PriceStore, SpanStore } from '../domain/ports.js';
import { SqliteBudgetStore } from './budgets.js';
import { SqliteGenerationStore } from './generations.js';
import { SqlitePriceStore } from './prices.js';
import { SqliteSpanStore } from './spans.js';

/** All tables of the observability store, plus `tx`, `isOpen` and `close`. */
export type ObsStore = Store<{ generations: GenerationStore; prices: PriceStore; budgets: BudgetStore; spans: SpanStore }>;

/** Open (create, migrate) the store under `dbDir` with the repository's `migrations` folder. */
export function openObsStore(opts: { dbDir: string; migrationsDir: string }): ObsStore {
  return openStore({ dbDir: opts.dbDir, store: 'observability', migrationsDir: opts.migrationsDir, vec: false }, (db) => ({
    generations: new SqliteGenerationStore(db), prices: new SqlitePriceStore(db),
    budgets: new SqliteBudgetStore(db), spans: new SqliteSpanStore(db),
  }));
}
