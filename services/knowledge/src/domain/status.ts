/**
 * The service's retrieval status (`GET /v1/knowledge/status`, and the dense / sparse fields of
 * `/readyz`): whether dense and sparse retrieval answer and why not, chunk counts and
 * re-embedding progress. Only admins read the embedder's own reason and model folder; users and
 * `/readyz` (unauthenticated) get words that name no directory (issue 11 item 9).
 */
import type { Principal } from '../../../shared/identity/principal.js';
import type { Embedder } from '../../../embedder/src/contracts.js';
import { embedderStatusFor } from '../../../embedder/src/index.js';
import type { KnowledgeSettings, KnowledgeStatus } from '../contracts.js';
import type { Indexer } from './indexing.js';
import type { ChunkStore, VectorIndex } from './ports.js';
import type { EmbeddingPump } from './pump.js';
import { isAdmin } from './visibility.js';

/** Dependencies of the status report. */
export interface StatusDeps {
  chunks: ChunkStore;
  vectors: VectorIndex;
  embedder: Embedder;
  indexer: Pick<Indexer, 'denseReason'>;
  pump: Pick<EmbeddingPump, 'reembedding'>;
  settings: Pick<KnowledgeSettings, 'sparseEnabled' | 'searchScoreThreshold'>;
}

/** The status report. */
export class StatusReport {
  constructor(private readonly d: StatusDeps) {}

  /**
   * The retrieval status now, as `reader` may see it: admins get the embedder's reason and model
   * folder, anyone else (and no reader: `/readyz`) the words of `publicDenseReason`.
   */
  async status(reader: Principal | null): Promise<KnowledgeStatus> {
    const dense = this.d.embedder.available;
    const detailed = reader !== null && isAdmin(reader);
    return {
      sparse_enabled: this.d.settings.sparseEnabled || !dense,
      dense_enabled: dense,
      dense_reason: dense ? null : this.d.indexer.denseReason(detailed),
      embedder: embedderStatusFor(this.d.embedder.status(), detailed),
      chunks: await this.d.chunks.count(),
      chunks_pending_vectors: dense ? await this.d.vectors.countPending() : 0,
      reembedding: this.d.pump.reembedding(),
      score_threshold: this.d.settings.searchScoreThreshold,
    };
  }

  /**
   * Fields `/readyz` adds to its ready body: dense and sparse retrieval on or off, why (in words
   * that name no directory: `/readyz` is unauthenticated), and the embedder state.
   */
  async readiness(): Promise<{ dense_retrieval: 'on' | 'off'; dense_reason: string | null; sparse_retrieval: 'on' | 'off'; embedder: string }> {
    const st = await this.status(null);
    return { dense_retrieval: st.dense_enabled ? 'on' : 'off', dense_reason: st.dense_reason, sparse_retrieval: st.sparse_enabled ? 'on' : 'off', embedder: st.embedder.state };
  }
}
