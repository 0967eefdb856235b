/**
 * The dense side of memory: vectors of texts through the embedder, background embedding of
 * memories stored without a vector (or whose content changed), and whether dense recall is on.
 * Without a model, recall is keyword-only and nothing here fails.
 */
import type { Principal } from '../../../shared/identity/principal-types.js';
import { embedderStatusFor, publicDenseReason, type Embedder, type EmbedPriority } from '../../../embedder/src/index.js';
import type { MemoryStatus } from '../contracts.js';
import type { VectorRepository } from './ports.js';

/** Roles that read the embedder's own reason and model folder (issue 11 item 9). */
const DETAIL_ROLES: readonly string[] = ['admin', 'tenant_admin', 'platform_admin'];

/** Memories embedded per batch of the background pump. */
const PUMP_BATCH = 64;

/** Dependencies of `DenseIndex`. */
export interface DenseIndexDeps { vectors: VectorRepository; embedder: Embedder }

/** Vectors of texts and the background embedding pump. */
export class DenseIndex {
  private pumping: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly d: DenseIndexDeps) {}

  /** True when the embedder can answer. */
  get available(): boolean { return this.d.embedder.available; }

  /** Embed what is waiting once the model has loaded. */
  start(): void {
    void this.d.embedder.whenSettled().then((st) => { if (st.state === 'ready') this.kick(); });
  }

  /** Stop the pump and wait for its current batch. */
  async close(): Promise<void> { this.closed = true; await this.pumping?.catch(() => {}); }

  /** The vector of `text`, or null without a model or when embedding fails. */
  async vectorOf(text: string, priority: EmbedPriority): Promise<Float32Array | null> {
    if (!this.d.embedder.available) return null;
    try { return (await this.d.embedder.embed([text], priority))[0]!; } catch { return null; }
  }

  /** Start the pump unless it runs, is closed, or there is no model; it stops when nothing is left. */
  kick(): void {
    if (this.pumping || this.closed || !this.d.embedder.available) return;
    this.pumping = (async () => {
      for (;;) {
        if (this.closed) return;
        const rows = await this.d.vectors.unembedded(PUMP_BATCH);
        if (!rows.length) return;
        let vecs: Float32Array[];
        try { vecs = await this.d.embedder.embed(rows.map((r) => r.content), 'bulk'); } catch { return; }
        for (const [i, r] of rows.entries()) await this.d.vectors.putVector(r.rid, r.content, vecs[i]!);
      }
    })().catch(() => { /* the store failed (closing): the next kick retries */ }).finally(() => { this.pumping = null; });
  }

  /**
   * Whether dense recall is on and why not, with the embedder's status, as `reader` may see it:
   * admins get the embedder's own reason (it names the folders searched) and model folder; anyone
   * else, and no reader (`/readyz`, unauthenticated), words that name no directory.
   */
  status(reader: Pick<Principal, 'roles'> | null): MemoryStatus {
    const st = this.d.embedder.status();
    const detailed = reader !== null && reader.roles.some((r) => DETAIL_ROLES.includes(r));
    const reason = st.state === 'loading' ? 'the embedding model is still loading' : detailed ? st.reason : publicDenseReason(st);
    return {
      dense_enabled: this.d.embedder.available,
      dense_reason: this.d.embedder.available ? null : reason,
      embedder: embedderStatusFor(st, detailed),
      sparse_enabled: true,
    };
  }
}
