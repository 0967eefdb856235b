/**
 * The document limits of issue 11 item 5, as pure functions: the ZIP directory guard (declared
 * sizes, lying entries, malformed and ZIP64 archives), the PDF page and text limits, the DOCX
 * expanded-size limit through `extractText`, the character and chunk limits of `prepareText`,
 * the linear-time heading scan that replaced a pattern with quadratic backtracking, and the worker
 * preparer (one worker per document, a bounded number at once, files read when their turn comes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atxHeading, chunkText } from '../../../services/knowledge/src/domain/chunking.js';
import { DocumentLimitError, ParseError } from '../../../services/knowledge/src/domain/parse-errors.js';
import { extractText } from '../../../services/knowledge/src/domain/parsers.js';
import { prepareDocument, prepareText } from '../../../services/knowledge/src/domain/prepare.js';
import { checkZipExpansion, readZipDirectory } from '../../../services/knowledge/src/domain/zip-guard.js';
import { PreparerClosedError } from '../../../services/knowledge/src/domain/parse-errors.js';
import { WorkerPreparer } from '../../../services/knowledge/src/parsing/worker-preparer.js';
import pino from 'pino';
import { makeDocx, makePdf } from '../../helpers/embedder/documents.js';
import { deflatedDocx, deflatedText, deflatedZip, docxBomb, pagedPdf, pdfBomb } from '../../helpers/knowledge-bombs.js';

const MB = 1024 * 1024;
const opts = (o: Partial<{ maxTextChars: number; maxChunks: number }> = {}) => ({
  chunk: { maxChars: 300, overlapChars: 50 },
  limits: { maxExpandedBytes: 64 * MB, maxPdfPages: 100, maxTextChars: 1_000_000, maxChunks: 1000, ...o },
});

function limitOf(fn: () => unknown): string {
  try { fn(); } catch (err) { if (err instanceof DocumentLimitError) return err.limit; throw err; }
  return 'none';
}

test('zip guard: sizes come from the central directory without inflating; a Word-made archive passes', async () => {
  const docx = deflatedDocx(['Hello there.']);
  const entries = readZipDirectory(docx);
  assert.deepEqual(entries.map((e) => [e.name, e.method]), [['[Content_Types].xml', 8], ['_rels/.rels', 8], ['word/document.xml', 8]]);
  const r = checkZipExpansion(docx, 64 * MB);
  assert.equal(r.entries, 3);
  assert.equal(r.expandedBytes, entries.reduce((s, e) => s + e.uncompressedSize, 0));
  assert.equal(checkZipExpansion(makeDocx('H', ['p']), 64 * MB).entries, 5, 'stored entries pass too');
});

test('zip guard: over the limit by declaration, or by an entry that expands past what it declares', async () => {
  const bomb = await docxBomb(80 * MB);
  const t0 = performance.now();
  assert.throws(() => checkZipExpansion(bomb, 64 * MB), (e: unknown) => e instanceof DocumentLimitError && e.limit === 'KNOWLEDGE_MAX_EXPANDED_BYTES' && /would expand to 83,88\d,\d{3} bytes/.test(e.message));
  assert.ok(performance.now() - t0 < 200, 'refused from the directory, nothing inflated');
  assert.doesNotThrow(() => checkZipExpansion(bomb, 128 * MB), 'the same archive under a higher limit');
  const liar = await docxBomb(80 * MB, true);
  assert.throws(() => checkZipExpansion(liar, 64 * MB), (e: unknown) => e instanceof DocumentLimitError && /declares \(4,096 bytes\)/.test(e.message));
});

test('zip guard: not a ZIP, truncated, ZIP64, encrypted or unknown methods are unreadable, not limits', () => {
  assert.throws(() => readZipDirectory(Buffer.from('PK garbage')), ParseError);
  const docx = deflatedDocx(['Hello.']);
  assert.throws(() => checkZipExpansion(docx.subarray(0, docx.length - 30), 64 * MB), ParseError);
  const zip64 = Buffer.from(docx);
  zip64.writeUInt16LE(0xffff, zip64.length - 22 + 10);
  assert.throws(() => readZipDirectory(zip64), /ZIP64/);
  const part = { name: 'a.xml', deflated: deflatedText('<a/>') };
  const enc = deflatedZip([part]);
  const cd = enc.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  enc.writeUInt16LE(1, cd + 8);
  assert.throws(() => checkZipExpansion(enc, MB), /encrypted/);
  const bz = deflatedZip([part]);
  bz.writeUInt16LE(12, bz.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 10);
  assert.throws(() => checkZipExpansion(bz, MB), /compression method/);
  for (const bad of [zip64, enc, bz]) assert.throws(() => checkZipExpansion(bad, MB), (e: unknown) => e instanceof ParseError && !(e instanceof DocumentLimitError));
});

test('extractText: PDF pages and text, DOCX expansion, and the text of every format are limited', async () => {
  await assert.rejects(extractText('pdf', pagedPdf(['a', 'b', 'c', 'd']), { maxPdfPages: 3 }), (e: unknown) => e instanceof DocumentLimitError && e.limit === 'KNOWLEDGE_MAX_PDF_PAGES');
  assert.match((await extractText('pdf', pagedPdf(['alpha', 'beta', 'gamma']), { maxPdfPages: 3 })).text, /alpha\n\nbeta\n\ngamma/);
  await assert.rejects(extractText('pdf', await pdfBomb(30 * MB, 'text'), { maxTextChars: 200_000 }), (e: unknown) => e instanceof DocumentLimitError && e.limit === 'KNOWLEDGE_MAX_TEXT_CHARS');
  await assert.rejects(extractText('docx', await docxBomb(10 * MB), { maxExpandedBytes: 4 * MB }), (e: unknown) => e instanceof DocumentLimitError && e.limit === 'KNOWLEDGE_MAX_EXPANDED_BYTES');
  await assert.rejects(extractText('text', Buffer.from('x'.repeat(2000)), { maxTextChars: 1000 }), (e: unknown) => e instanceof DocumentLimitError && e.limit === 'KNOWLEDGE_MAX_TEXT_CHARS');
  await assert.rejects(extractText('html', Buffer.from(`<p>${'word '.repeat(500)}</p>`), { maxTextChars: 1000 }), DocumentLimitError);
  assert.equal((await extractText('pdf', makePdf(['Within limits.']), { maxPdfPages: 1, maxTextChars: 100 })).text, 'Within limits.');
});

test('prepareText / prepareDocument: characters and chunks per document; chunks carry analysed body terms', async () => {
  const sections = Array.from({ length: 30 }, (_, i) => `# Part ${i}\nBody of part ${i}.`).join('\n\n');
  assert.equal(prepareText(sections, opts()).length, 30);
  assert.equal(limitOf(() => prepareText(sections, opts({ maxChunks: 29 }))), 'KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT');
  assert.equal(limitOf(() => prepareText(sections, opts({ maxTextChars: sections.length - 1 }))), 'KNOWLEDGE_MAX_TEXT_CHARS');
  assert.equal(limitOf(() => prepareText(sections, opts({ maxChunks: 30, maxTextChars: sections.length }))), 'none');
  const [first] = prepareText('# Gardens\nRoses bloom in June.', opts());
  assert.deepEqual(first, { chunk_index: 0, heading: 'Gardens', content: 'Roses bloom in June.', bodyTerms: 'garden rose bloom june' });
  const doc = await prepareDocument('docx', makeDocx('Setup', ['Install the tools.']), opts());
  assert.equal(doc.chunks[0]!.heading, 'Setup');
  await assert.rejects(prepareDocument('docx', makeDocx('Setup', ['Install the tools.']), opts({ maxTextChars: 5 })), DocumentLimitError);
});

test('atxHeading agrees with the pattern it replaced, in linear time', () => {
  const old = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
  const alphabet = ['#', ' ', '\t', 'a', 'b', '\u00a0'];
  let seed = 7;
  const rand = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let i = 0; i < 20_000; i++) {
    const len = 1 + rand(10);
    let line = '#'.repeat(rand(8));
    for (let k = 0; k < len; k++) line += alphabet[rand(alphabet.length)];
    const m = old.exec(line);
    assert.deepEqual(atxHeading(line), m ? { level: m[1]!.length, text: m[2]! } : null, JSON.stringify(line));
  }
  const hostile = `# x${' '.repeat(200_000)}y`;
  const t0 = performance.now();
  assert.equal(atxHeading(hostile)!.text, `x${' '.repeat(200_000)}y`);
  assert.equal(chunkText(`${hostile}\nbody`, { maxChars: 2000, overlapChars: 200 }).length, 1);
  assert.ok(performance.now() - t0 < 1000, `linear: ${Math.round(performance.now() - t0)} ms`);
});

test('WorkerPreparer: prepares in worker threads, reads a file when its turn comes, runs at most `concurrency` at once, stops on close', async () => {
  const logger = pino({ level: 'silent' });
  const p = new WorkerPreparer({ prepare: opts(), timeoutMs: 30_000, memoryMb: 256, concurrency: 1, logger });
  let loads = 0;
  const first = p.prepare({ kind: 'file', format: 'pdf', load: () => { loads++; return pagedPdf(['one page', 'two page']); } });
  const second = p.prepare({ kind: 'text', text: '# Gardens\nRoses bloom in June.' });
  const gone = p.prepare({ kind: 'file', format: 'pdf', load: () => null });
  assert.deepEqual([p.load(), loads], [{ running: 1, queued: 2 }, 1]);
  assert.match((await first).text, /one page\n\ntwo page/);
  assert.deepEqual((await second).chunks.map((c) => c.bodyTerms), ['garden rose bloom june']);
  await assert.rejects(gone, (e: unknown) => e instanceof ParseError && /no longer stored/.test(e.message));

  const running = p.prepare({ kind: 'file', format: 'pdf', load: () => pagedPdf(['x']) });
  const queued = p.prepare({ kind: 'text', text: 'waiting' });
  const stopped = Promise.all([assert.rejects(running, PreparerClosedError), assert.rejects(queued, PreparerClosedError)]);
  await p.close();
  await stopped;
  await assert.rejects(p.prepare({ kind: 'text', text: 'late' }), PreparerClosedError);
  assert.deepEqual(p.load(), { running: 0, queued: 0 });
});
