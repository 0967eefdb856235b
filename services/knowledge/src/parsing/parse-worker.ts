/**
 * The parse worker (issue 11 item 5 "Document bombs"): one worker thread per document, started by
 * worker-preparer.ts with a heap limit and a deadline. It prepares the document its `workerData`
 * carries (domain/prepare.ts: extraction within the limits, chunking, keyword terms), posts one
 * `ParseReply` and ends. A document that needs more heap than allowed ends this thread only
 * (ERR_WORKER_OUT_OF_MEMORY), never the service.
 *
 * The heap limit does not cover ArrayBuffers, where pdfjs keeps what a PDF's streams decode to (a
 * content stream of comments expands to GBs without one character of text), so while a PDF parses
 * a watch reads this thread's `process.memoryUsage().arrayBuffers` every `WATCH_MS` and refuses the
 * document past twice the input plus KNOWLEDGE_MAX_EXPANDED_BYTES (twice: pdfjs holds a copy of the
 * file, and decode buffers grow by doubling). A DOCX needs no watch: the zip guard measured it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { prepareDocument, prepareText, type PrepareOptions, type PreparedDocument } from '../domain/prepare.js';
import { DocumentLimitError, ParseError, type DocumentLimitName } from '../domain/parse-errors.js';
import type { DocFormat } from '../domain/parsers.js';

/** What the worker is given: a file (its bytes and format) or a text, and how to prepare it. */
export interface ParseRequest {
  job: { kind: 'file'; format: DocFormat; bytes: Uint8Array } | { kind: 'text'; text: string };
  opts: PrepareOptions;
}

/** The worker's one message: the prepared document, or why not (`limit` for a limit's refusal). */
export type ParseReply =
  | { ok: true; doc: PreparedDocument }
  | { ok: false; kind: 'limit' | 'parse' | 'internal'; message: string; limit?: DocumentLimitName };

async function run(req: ParseRequest): Promise<PreparedDocument> {
  if (req.job.kind === 'text') return { text: req.job.text, title: null, chunks: prepareText(req.job.text, req.opts) };
  const b = req.job.bytes;
  return prepareDocument(req.job.format, Buffer.from(b.buffer, b.byteOffset, b.byteLength), req.opts);
}

/** How often the expansion watch looks, ms (timers run between pdfjs's time slices, at most ~0.5 s apart). */
const WATCH_MS = 100;

let replied = false;

function reply(r: ParseReply): void {
  if (replied) return;
  replied = true;
  parentPort!.postMessage(r);
}

/** Refuse a PDF once this thread's ArrayBuffers pass the ceiling; the preparer then ends the thread. */
function watchExpansion(req: ParseRequest): () => void {
  if (req.job.kind !== 'file' || req.job.format !== 'pdf') return () => {};
  const input = req.job.bytes.byteLength;
  const limit = req.opts.limits.maxExpandedBytes;
  const ceiling = 2 * (input + limit);
  const timer = setInterval(() => {
    if (process.memoryUsage().arrayBuffers <= ceiling) return;
    clearInterval(timer);
    reply({
      ok: false, kind: 'limit', limit: 'KNOWLEDGE_MAX_EXPANDED_BYTES',
      message: `refused: the PDF's streams expanded past the limit of ${limit.toLocaleString('en-US')} bytes while it was parsed (KNOWLEDGE_MAX_EXPANDED_BYTES)`,
    });
  }, WATCH_MS);
  return () => clearInterval(timer);
}

async function main(): Promise<void> {
  const req = workerData as ParseRequest;
  const unwatch = watchExpansion(req);
  try {
    reply({ ok: true, doc: await run(req) });
  } catch (err) {
    if (err instanceof DocumentLimitError) reply({ ok: false, kind: 'limit', message: err.message, limit: err.limit });
    else if (err instanceof ParseError) reply({ ok: false, kind: 'parse', message: err.message });
    else reply({ ok: false, kind: 'internal', message: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  } finally {
    unwatch();
  }
}

void main();
