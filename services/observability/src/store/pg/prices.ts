/** `prices` and `meta` on PostgreSQL (issue 21 item 1): the twin of store/prices.ts (the list replaced in one transaction). */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { ModelPrice } from '../../contracts.js';
import type { ListPrice, PriceStore } from '../../domain/ports.js';

/** PostgreSQL implementation of `PriceStore`. */
export class PgPriceStore implements PriceStore {
  constructor(private readonly db: PgDb) {}

  replace(prices: Record<string, ModelPrice>, at: string, sourceUrl: string): Promise<number> {
    const entries = Object.entries(prices);
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM prices');
      if (entries.length) {
        await this.db.exec(`INSERT INTO prices (model, input_usd_per_mtok, output_usd_per_mtok, updated_at)
          SELECT m, i, o, $4 FROM unnest($1::text[], $2::float8[], $3::float8[]) AS x(m, i, o)
          ON CONFLICT (model) DO UPDATE SET input_usd_per_mtok = excluded.input_usd_per_mtok, output_usd_per_mtok = excluded.output_usd_per_mtok, updated_at = excluded.updated_at`,
        [entries.map(([m]) => m), entries.map(([, p]) => p.in), entries.map(([, p]) => p.out), at]);
      }
      await this.db.exec(`INSERT INTO meta (k, v) VALUES ('prices_refreshed_at', $1), ('prices_source_url', $2)
        ON CONFLICT (k) DO UPDATE SET v = excluded.v`, [at, sourceUrl]);
      return entries.length;
    });
  }

  async all(): Promise<ListPrice[]> {
    const rows = await this.db.query<{ model: string; input_usd_per_mtok: number; output_usd_per_mtok: number; updated_at: string }>(
      'SELECT model, input_usd_per_mtok, output_usd_per_mtok, updated_at FROM prices ORDER BY model');
    return rows.map((r) => ({ model: r.model, in: r.input_usd_per_mtok, out: r.output_usd_per_mtok, updated_at: r.updated_at }));
  }

  async refreshedAt(): Promise<string | null> {
    const [r] = await this.db.query<{ v: string }>("SELECT v FROM meta WHERE k = 'prices_refreshed_at'");
    return r?.v ?? null;
  }
}
