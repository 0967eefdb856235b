/**
 * Text extraction from uploaded files through well-kept parsers (docs/decisions-knowledge.md
 * "Parsers"): PDF with pdfjs-dist (legacy build for Node, no eval, no fonts), DOCX with mammoth
 * (to HTML, then Markdown headings so chunking sees the structure), HTML, Markdown, plain text and
 * CSV (RFC 4180 quoting; each row becomes `column: value` lines). The output is Markdown-ish text.
 *
 * Document limits (issue 11 item 5 "Document bombs", `ExtractLimits`): a DOCX is measured from its
 * ZIP directory before anything is inflated (zip-guard.ts) and its images are never read; a PDF
 * with more pages than allowed is refused before any page is read, and its text is streamed page by
 * page and cut off as soon as it passes the character limit; every format's text is held to the
 * same character limit. Runs in the parse worker (parsing/parse-worker.ts), which also bounds time
 * and memory.
 *
 * Errors: `ParseError` with a message fit for `last_error` (no paths, no stack);
 * `DocumentLimitError` (a `ParseError`) when a limit refuses the document.
 */
import { DocumentLimitError, ParseError } from './parse-errors.js';
import { checkZipExpansion } from './zip-guard.js';

export { DocumentLimitError, ParseError } from './parse-errors.js';

/**
 * Limits of one extraction (main/config/services/knowledge.ts); absent ones do not apply.
 * `maxExpandedBytes`: what a DOCX may expand to, bytes; `maxPdfPages`: pages of a PDF;
 * `maxTextChars`: characters of extracted text (UTF-16 code units).
 */
export interface ExtractLimits { maxExpandedBytes?: number; maxPdfPages?: number; maxTextChars?: number }

/** Formats the service accepts. */
export type DocFormat = 'pdf' | 'docx' | 'html' | 'markdown' | 'text' | 'csv';

const EXT: Record<string, DocFormat> = {
  pdf: 'pdf', docx: 'docx', html: 'html', htm: 'html', md: 'markdown', markdown: 'markdown', txt: 'text', text: 'text', csv: 'csv',
  log: 'text', json: 'text', rst: 'text',
};
const MIME: Record<string, DocFormat> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html', 'text/markdown': 'markdown', 'text/x-markdown': 'markdown', 'text/plain': 'text', 'text/csv': 'csv',
};

/** The MIME type recorded for a format. */
export const FORMAT_MIME: Record<DocFormat, string> = {
  pdf: 'application/pdf', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html', markdown: 'text/markdown', text: 'text/plain', csv: 'text/csv',
};

/** Decide the format from magic bytes, then the file extension, then the declared type. */
export function detectFormat(filename: string | null, mime: string | null, bytes: Buffer): DocFormat | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  const ext = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return ext === 'docx' || mime === FORMAT_MIME.docx ? 'docx' : null;
  if (ext && EXT[ext]) return EXT[ext]!;
  const m = mime?.split(';')[0]!.trim().toLowerCase();
  if (m && MIME[m]) return MIME[m]!;
  // Unknown name and type: accept it as text when it decodes as UTF-8 without control bytes.
  const head = bytes.subarray(0, 4096).toString('utf8');
  return /[\x00-\x08\x0e-\x1f]/.test(head) || head.includes('\uFFFD') ? null : 'text';
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

/** HTML to Markdown-ish text: headings become `#` lines, blocks become paragraphs, tags go. */
export function htmlToText(html: string): { text: string; title: string | null } {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  let s = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|noscript|template|svg)[\s>][\s\S]*?<\/\1>/gi, '')
    .replace(/<h([1-6])[^>]*>([\s\S]*?)<\/h\1>/gi, (_m, l: string, t: string) => `\n\n${'#'.repeat(Number(l))} ${t.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim()}\n\n`)
    .replace(/<li[^>]*>/gi, '\n- ')
    .replace(/<\/(td|th)>/gi, ' | ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(p|div|section|article|ul|ol|table|tr|blockquote|pre|header|footer|main|nav|aside|figure|h[1-6])[^>]*>/gi, '\n\n')
    .replace(/<[^>]+>/g, '');
  s = decodeEntities(s).replace(/[ \t\f\v]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  return { text: s, title: title ? decodeEntities(title.replace(/<[^>]+>/g, '')).trim() || null : null };
}

/** Parse CSV (RFC 4180: quotes, doubled quotes, CRLF) into rows. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') { if (text[i + 1] === '"') { field += '"'; i++; } else quoted = false; } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') { row.push(field); field = ''; } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field); field = '';
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
    } else field += c;
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  return rows;
}

function csvToText(text: string): string {
  const rows = parseCsv(text);
  if (rows.length === 0) return '';
  const header = rows[0]!.map((h, i) => h.trim() || `column ${i + 1}`);
  if (rows.length === 1) return header.join(', ');
  return rows.slice(1).map((r, n) => `Row ${n + 1}\n${r.map((v, i) => `${header[i] ?? `column ${i + 1}`}: ${v}`).join('\n')}`).join('\n\n');
}

function fmt(n: number): string { return n.toLocaleString('en-US'); }

function tooMuchText(max: number): DocumentLimitError {
  return new DocumentLimitError(`refused: the document holds more than ${fmt(max)} characters of text (KNOWLEDGE_MAX_TEXT_CHARS)`, 'KNOWLEDGE_MAX_TEXT_CHARS');
}

/** One streamed piece of a page's text content (pdfjs `TextContent` items). */
interface TextChunk { items: Array<{ str?: string; hasEOL?: boolean }> }

async function pdfToText(bytes: Buffer, limits: ExtractLimits): Promise<{ text: string; title: string | null }> {
  const maxChars = limits.maxTextChars ?? Infinity;
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let doc;
  try {
    doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  } catch (err) {
    throw new ParseError(`the PDF could not be read (${err instanceof Error ? err.name : 'error'})`);
  }
  try {
    const maxPages = limits.maxPdfPages ?? Infinity;
    if (doc.numPages > maxPages) {
      throw new DocumentLimitError(`refused: the PDF has ${fmt(doc.numPages)} pages, above the limit of ${fmt(maxPages)} (KNOWLEDGE_MAX_PDF_PAGES)`, 'KNOWLEDGE_MAX_PDF_PAGES');
    }
    const pages: string[] = [];
    let chars = 0;
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      let line = '';
      const lines: string[] = [];
      // Streamed, so a page whose content stream expands without end is cut at the character limit.
      const reader = (page.streamTextContent() as ReadableStream<TextChunk>).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const item of value.items) {
          if (typeof item.str !== 'string') continue;
          line += item.str;
          chars += item.str.length;
          if (item.hasEOL) { lines.push(line); line = ''; }
        }
        if (chars > maxChars) {
          // pdfjs wants an Error as the reason; without one the stream never ends and destroy() waits on it.
          await reader.cancel(new Error('text limit')).catch(() => {});
          throw tooMuchText(maxChars);
        }
      }
      if (line) lines.push(line);
      // Lines that end a sentence close a paragraph; others continue it.
      pages.push(lines.map((l) => l.trimEnd()).join('\n').replace(/([^.!?:])\n(?=[a-z])/g, '$1 '));
      page.cleanup();
    }
    const meta = await doc.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as { Title?: unknown };
    return { text: pages.join('\n\n'), title: typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : null };
  } finally {
    // Bounded: a document pdfjs is still busy with must not keep the parse from answering.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([doc.destroy().catch(() => {}), new Promise<void>((resolve) => { timer = setTimeout(resolve, 2000); })]);
    clearTimeout(timer);
  }
}

async function docxToText(bytes: Buffer, limits: ExtractLimits): Promise<string> {
  // Measured from the ZIP directory before mammoth inflates anything (zip bombs).
  checkZipExpansion(bytes, limits.maxExpandedBytes ?? Number.MAX_SAFE_INTEGER);
  const mammoth = (await import('mammoth')).default;
  let html: string;
  try {
    // Images are never read: the text is all that is indexed.
    html = (await mammoth.convertToHtml({ buffer: bytes }, { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) })).value;
  } catch {
    throw new ParseError('the DOCX file could not be read (not a valid Word document)');
  }
  return htmlToText(html).text;
}

/**
 * Extract text (and a title when the format carries one), within `limits`.
 * @throws DocumentLimitError when a limit refuses the document; ParseError when the bytes are not a
 *   readable document of `format`, or hold no text.
 */
export async function extractText(format: DocFormat, bytes: Buffer, limits: ExtractLimits = {}): Promise<{ text: string; title: string | null }> {
  let out: { text: string; title: string | null };
  switch (format) {
    case 'pdf': out = await pdfToText(bytes, limits); break;
    case 'docx': out = { text: await docxToText(bytes, limits), title: null }; break;
    case 'html': out = htmlToText(bytes.toString('utf8')); break;
    case 'csv': out = { text: csvToText(bytes.toString('utf8').replace(/^\uFEFF/, '')), title: null }; break;
    case 'markdown': case 'text': {
      const t = bytes.toString('utf8').replace(/^\uFEFF/, '');
      out = { text: t, title: format === 'markdown' ? (/^#\s+(.+)$/m.exec(t)?.[1]?.trim() ?? null) : null };
      break;
    }
  }
  if (out.text.length > (limits.maxTextChars ?? Infinity)) throw tooMuchText(limits.maxTextChars!);
  if (!out.text.trim()) throw new ParseError(format === 'pdf' ? 'the PDF holds no extractable text (scanned pages need OCR, which is not available)' : 'the file holds no text');
  return out;
}
