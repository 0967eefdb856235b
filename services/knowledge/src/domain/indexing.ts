/**
 * Indexing of a document's text: chunks (docs/decisions-knowledge.md "Chunking") with analysed
 * title and body terms for keyword search, and vectors made at once for small ingests (the pump
 * makes the rest). Also says whether dense retrieval is wanted and, when off, why.
 */
import type { Logger } from 'pino';
import type { Embedder } from '../../../embedder/src/contracts.js';
import { analyze, publicDenseReason } from '../../../embedder/src/index.js';
import type { KnowledgeSettings } from '../contracts.js';
import type { PreparedChunk, PrepareOptions } from './prepare.js';
import type { ChunkStore, VectorIndex } from './ports.js';
import { embeddingText, type EmbeddingPump } from './pump.js';

function nowIso(): string { return new Date().toISOString(); }

/** Dependencies of the indexer. */
export interface IndexerDeps {
  chunks: ChunkStore;
  vectors: VectorIndex;
  embedder: Embedder;
  settings: Pick<KnowledgeSettings, 'chunkChars' | 'chunkOverlapChars' | 'maxExpandedBytes' | 'maxPdfPages' | 'maxTextChars' | 'maxChunksPerDocument'>;
  pump: Pick<EmbeddingPump, 'kick'>;
  logger: Logger;
}

/** Chunks, keyword terms and first vectors of documents. */
export class Indexer {
  constructor(private readonly d: IndexerDeps) {}

  /** Chunk sizes and document limits (issue 11 item 5) of `prepareText` / `prepareDocument`. */
  prepareOptions(): PrepareOptions {
    const s = this.d.settings;
    return {
      chunk: { maxChars: s.chunkChars, overlapChars: s.chunkOverlapChars },
      limits: { maxExpandedBytes: s.maxExpandedBytes, maxPdfPages: s.maxPdfPages, maxTextChars: s.maxTextChars, maxChunks: s.maxChunksPerDocument },
    };
  }

  /**
   * Replace a document's chunks (and their keyword rows and vectors) by prepared chunks
   * (domain/prepare.ts; body terms analysed, the title's added here). Call inside a transaction.
   * @returns the new chunk ids and their embedding texts.
   */
  async indexPrepared(doc: { id: string; title: string }, chunks: PreparedChunk[]): Promise<{ chunkIds: number[]; texts: string[] }> {
    const titleTerms = analyze(doc.title).join(' ');
    const rows = chunks.map((c) => ({ chunk_index: c.chunk_index, heading: c.heading, content: c.content, titleTerms, bodyTerms: c.bodyTerms }));
    await this.d.vectors.remove(await this.d.chunks.idsOf(doc.id));
    const chunkIds = await this.d.chunks.replace(doc.id, rows);
    return { chunkIds, texts: chunks.map((c) => embeddingText(doc.title, c.heading, c.content)) };
  }

  /** Embed `chunkIds` now (small ingests answer with vectors in place). Failures leave them to the pump. */
  async embedNow(documentId: string, chunkIds: number[], texts: string[]): Promise<void> {
    if (!this.d.embedder.available || chunkIds.length === 0) return;
    try {
      const vecs = await this.d.embedder.embed(texts, 'bulk');
      await this.d.vectors.put(chunkIds.map((id, i) => ({ chunkId: id, documentId, vector: vecs[i]! })), nowIso());
    } catch (err) {
      this.d.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'embedding at ingest failed; the background pass retries');
      this.d.pump.kick();
    }
  }

  /** True while a model is loading or ready: new chunks wait for vectors (`indexing`). */
  denseWanted(): boolean {
    const st = this.d.embedder.status().state;
    return st === 'ready' || st === 'loading';
  }

  /**
   * Plain words for the UI: why dense retrieval is off. `detailed` (admins) gives the embedder's own
   * reason, which names the folders searched or the load error; otherwise words that name no
   * directory or file (issue 11 item 9).
   */
  denseReason(detailed: boolean): string {
    const st = this.d.embedder.status();
    if (st.state === 'loading') return 'the embedding model is still loading; keyword (BM25) search answers meanwhile';
    return (detailed ? st.reason : publicDenseReason(st)) ?? 'dense retrieval is off';
  }
}
