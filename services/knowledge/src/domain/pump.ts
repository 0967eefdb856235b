/**
 * The indexing pump: background work that embeds chunks lacking vectors, in batches of 64, while
 * a model is available (docs/decisions-knowledge.md). After an EMBEDDING_DIMS change it re-embeds
 * every chunk and reports progress as a `reembed` job. Runs as the service's background work
 * (app.ts); `kick()` wakes it after writes that leave chunks without vectors.
 */
import type { Logger } from 'pino';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type { Embedder } from '../../../embedder/src/contracts.js';
import type { ChunkStore, JobStore, VectorIndex } from './ports.js';

const newId = ulidFactory();
const BATCH = 64;

function nowIso(): string { return new Date().toISOString(); }

/** Text given to the model for a chunk: the title and heading give it context. */
export function embeddingText(title: string, heading: string | null, content: string): string {
  return heading ? `${title}\n${heading}\n${content}` : `${title}\n${content}`;
}

/** Dependencies of the pump. */
export interface EmbeddingPumpDeps {
  tenantId: string;
  chunks: ChunkStore;
  vectors: VectorIndex;
  jobs: JobStore;
  embedder: Embedder;
  logger: Logger;
}

/** Progress of the re-embedding after an EMBEDDING_DIMS change. */
export interface ReembedProgress { running: boolean; done: number; total: number }

/** The background embedding pass. */
export class EmbeddingPump {
  private pumping: Promise<void> | null = null;
  private closed = false;
  private reembed: (ReembedProgress & { jobId: string }) | null = null;

  constructor(private readonly d: EmbeddingPumpDeps) {}

  /**
   * Start: when the vector index was `recreated`, record a `reembed` job over every chunk; once the
   * embedder settles, pump (model ready) or mark waiting documents indexed (no model).
   * @returns how to stop (in-flight embedding finishes first).
   */
  start(recreated: boolean): () => Promise<void> {
    // On SQLite the store calls answer at once, so the job exists before any request is served.
    const begun = recreated ? this.beginReembed() : Promise.resolve();
    const settled = begun.then(() => this.d.embedder.whenSettled()).then(async (st) => {
      if (this.closed) return;
      if (st.state === 'ready') this.kick();
      else {
        await this.d.vectors.finishWithoutVectors();
        if (this.reembed) { this.reembed.running = false; await this.d.jobs.progress(this.reembed.jobId, 0, this.reembed.total, 'failed', st.reason, nowIso()); }
      }
    });
    settled.catch((err: unknown) => this.d.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'marking documents without vectors failed'));
    return () => this.close();
  }

  /** Record a `reembed` job over every chunk (the vector index was recreated at start). */
  private async beginReembed(): Promise<void> {
    const total = await this.d.chunks.count();
    const jobId = newId();
    await this.d.jobs.create(jobId, this.d.tenantId, 'reembed', 'system', total, nowIso());
    this.reembed = { jobId, total, done: 0, running: true };
    this.d.logger.warn({ total }, 'EMBEDDING_DIMS changed: vector index recreated, re-embedding every chunk in the background');
  }

  /** Stop background work (in-flight embedding finishes). */
  async close(): Promise<void> {
    this.closed = true;
    await this.pumping?.catch(() => {});
  }

  /** Start a pass over chunks lacking vectors (no-op when one runs, after close, or without a model). */
  kick(): void {
    if (this.pumping || this.closed || !this.d.embedder.available) return;
    this.pumping = this.pump()
      .catch((err: unknown) => { this.d.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'background embedding failed'); })
      .finally(() => { this.pumping = null; });
  }

  /** Re-embedding progress, or null when the index was not recreated at start. */
  reembedding(): ReembedProgress | null {
    return this.reembed ? { running: this.reembed.running, done: this.reembed.done, total: this.reembed.total } : null;
  }

  private async pump(): Promise<void> {
    for (;;) {
      if (this.closed || !this.d.embedder.available) return;
      const rows = await this.d.vectors.pending(BATCH);
      if (rows.length === 0) break;
      let vecs: Float32Array[];
      try {
        vecs = await this.d.embedder.embed(rows.map((r) => embeddingText(r.title, r.heading, r.content)), 'bulk');
      } catch (err) {
        this.d.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'background embedding failed');
        return;
      }
      if (this.closed) return;
      await this.d.vectors.put(rows.map((r, i) => ({ chunkId: r.chunk_id, documentId: r.document_id, vector: vecs[i]! })), nowIso());
      if (this.reembed) {
        this.reembed.done += rows.length;
        await this.d.jobs.progress(this.reembed.jobId, this.reembed.done, this.reembed.total, 'running', null, nowIso());
      }
    }
    if (this.reembed?.running) {
      this.reembed.running = false;
      await this.d.jobs.progress(this.reembed.jobId, this.reembed.total, this.reembed.total, 'done', null, nowIso());
    }
  }
}
