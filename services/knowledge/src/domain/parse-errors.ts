/**
 * Errors of text extraction and document preparation, with messages fit for a document's
 * `last_error` (no paths, no stacks). `DocumentLimitError` is a refusal by one of the document
 * limits of issue 11 item 5 ("Document bombs") and names the setting that sets it.
 */

/** Extraction failed; `message` is shown to the user as the document's `last_error`. */
export class ParseError extends Error {
  constructor(message: string) { super(message); this.name = 'ParseError'; }
}

/**
 * The settings whose limits refuse a document (main/config/services/knowledge.ts): expanded size
 * of a DOCX, PDF pages, extracted characters, chunks, parse time and parse memory.
 */
export type DocumentLimitName =
  | 'KNOWLEDGE_MAX_EXPANDED_BYTES' | 'KNOWLEDGE_MAX_PDF_PAGES' | 'KNOWLEDGE_MAX_TEXT_CHARS'
  | 'KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT' | 'KNOWLEDGE_PARSE_TIMEOUT_MS' | 'KNOWLEDGE_PARSE_MEMORY_MB';

/** A document refused by a limit; `limit` names the setting (answered as `limit` beside `document_limit_exceeded`). */
export class DocumentLimitError extends ParseError {
  constructor(message: string, readonly limit: DocumentLimitName) { super(message); this.name = 'DocumentLimitError'; }
}

/** The service stopped before a document's parse finished: the document stays `indexing` and parses again at the next start. */
export class PreparerClosedError extends Error {
  constructor() { super('the knowledge service is stopping'); this.name = 'PreparerClosedError'; }
}
