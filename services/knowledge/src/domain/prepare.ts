/**
 * Preparation of a document for the index, the CPU-heavy part of ingestion (issue 11 item 5
 * "Document bombs"): text extraction within the document limits (parsers.ts), structure-aware
 * chunking (chunking.ts), the chunk limit, and the analysed keyword terms of every chunk. Pure
 * over its input; the parse worker (parsing/parse-worker.ts) runs it off the service's event loop,
 * and small texts run it in place.
 *
 * Errors: `DocumentLimitError` when a limit refuses the document, `ParseError` when it cannot be read.
 */
import { analyze } from '../../../embedder/src/index.js';
import { chunkText, type ChunkOptions } from './chunking.js';
import { DocumentLimitError } from './parse-errors.js';
import { extractText, type DocFormat, type ExtractLimits } from './parsers.js';

/** Limits of one document: the extraction limits plus `maxChunks`, chunks per document. */
export interface DocumentLimits extends Required<ExtractLimits> { maxChunks: number }

/** How to prepare: chunk sizes (characters) and limits. */
export interface PrepareOptions { chunk: ChunkOptions; limits: DocumentLimits }

/** A chunk ready for the store, with its analysed body terms (the title's are added at store time). */
export interface PreparedChunk { chunk_index: number; heading: string | null; content: string; bodyTerms: string }

/** A prepared document: its extracted text, the title the file carries (or null) and its chunks. */
export interface PreparedDocument { text: string; title: string | null; chunks: PreparedChunk[] }

/**
 * Chunk `text` and analyse every chunk, within the character and chunk limits.
 * @throws DocumentLimitError (`KNOWLEDGE_MAX_TEXT_CHARS`, `KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT`).
 */
export function prepareText(text: string, opts: PrepareOptions): PreparedChunk[] {
  const { maxTextChars, maxChunks } = opts.limits;
  if (text.length > maxTextChars) {
    throw new DocumentLimitError(`refused: the document holds more than ${maxTextChars.toLocaleString('en-US')} characters of text (KNOWLEDGE_MAX_TEXT_CHARS)`, 'KNOWLEDGE_MAX_TEXT_CHARS');
  }
  const chunks = chunkText(text, opts.chunk);
  if (chunks.length > maxChunks) {
    throw new DocumentLimitError(
      `refused: the document makes ${chunks.length.toLocaleString('en-US')} chunks, above the limit of ${maxChunks.toLocaleString('en-US')} per document (KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT)`,
      'KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT',
    );
  }
  return chunks.map((c) => ({
    chunk_index: c.index, heading: c.heading, content: c.content,
    bodyTerms: analyze(c.heading ? `${c.heading}\n${c.content}` : c.content).join(' '),
  }));
}

/**
 * Extract, chunk and analyse a file of `format`.
 * @throws DocumentLimitError, ParseError.
 */
export async function prepareDocument(format: DocFormat, bytes: Buffer, opts: PrepareOptions): Promise<PreparedDocument> {
  const { text, title } = await extractText(format, bytes, opts.limits);
  return { text, title, chunks: prepareText(text, opts) };
}
