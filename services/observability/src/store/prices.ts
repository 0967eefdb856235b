/** `prices` and `meta` tables (migrations/observability/0001_init.sql): the refreshed price list and when it was refreshed. */
import type { Db } from '../../../shared/db/open.js';
import type { ModelPrice } from '../contracts.js';
import type { ListPrice, PriceStore } from '../domain/ports.js';

/** SQLite implementation of `PriceStore`. */
export class SqlitePriceStore implements PriceStore {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      upsert: db.prepare(`INSERT INTO prices (model, input_usd_per_mtok, output_usd_per_mtok, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT(model) DO UPDATE SET input_usd_per_mtok = excluded.input_usd_per_mtok, output_usd_per_mtok = excluded.output_usd_per_mtok, updated_at = excluded.updated_at`),
      all: db.prepare('SELECT model, input_usd_per_mtok, output_usd_per_mtok, updated_at FROM prices ORDER BY model'),
      getMeta: db.prepare('SELECT v FROM meta WHERE k = ?'),
      setMeta: db.prepare('INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v'),
    };
  }

  replace(prices: Record<string, ModelPrice>, at: string, sourceUrl: string): number {
    const tx = this.db.transaction(() => {
      this.db.prepare('DELETE FROM prices').run();
      for (const [model, p] of Object.entries(prices)) this.q.upsert.run(model, p.in, p.out, at);
      this.q.setMeta.run('prices_refreshed_at', at);
      this.q.setMeta.run('prices_source_url', sourceUrl);
    });
    tx();
    return Object.keys(prices).length;
  }

  all(): ListPrice[] {
    return (this.q.all.all() as Array<{ model: string; input_usd_per_mtok: number; output_usd_per_mtok: number; updated_at: string }>)
      .map((r) => ({ model: r.model, in: r.input_usd_per_mtok, out: r.output_usd_per_mtok, updated_at: r.updated_at }));
  }

  refreshedAt(): string | null {
    return (this.q.getMeta.get('prices_refreshed_at') as { v: string } | undefined)?.v ?? null;
  }
}
