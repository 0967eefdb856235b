/**
 * Document bombs made at test time (issue 11 item 5): a DOCX whose `word/document.xml` expands to
 * hundreds of MB (a deflated ZIP entry built from a repeated block, streamed through zlib so the
 * expanded text never sits in memory), optionally with a central directory that understates the
 * size; a PDF whose FlateDecode content stream does the same; and small honest documents (a
 * deflated DOCX, a PDF of several pages). Nothing is kept on disk.
 */
import { createDeflate, createDeflateRaw, crc32, deflateRawSync, type Deflate, type DeflateRaw } from 'node:zlib';

/** A compressed stream and the size and CRC-32 of what it expands to. */
export interface Deflated { data: Buffer; size: number; crc: number }

/**
 * Deflate `prefix`, then `unit` repeated up to `total` bytes, then `suffix`, 1 MiB at a time.
 * @param raw raw deflate (ZIP entries) instead of the zlib format (PDF FlateDecode).
 */
export async function deflateRepeated(prefix: string, unit: string, total: number, suffix: string, raw: boolean): Promise<Deflated> {
  const z: Deflate | DeflateRaw = raw ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise<void>((resolve, reject) => { z.on('end', resolve); z.on('error', reject); });
  let crc = 0;
  let size = 0;
  const write = async (b: Buffer): Promise<void> => {
    crc = crc32(b, crc);
    size += b.length;
    if (!z.write(b)) await new Promise<void>((resolve) => z.once('drain', () => resolve()));
  };
  await write(Buffer.from(prefix));
  const u = Buffer.from(unit);
  const per = Math.max(1, Math.floor((1 << 20) / u.length));
  const block = Buffer.from(unit.repeat(per));
  for (let units = Math.floor(total / u.length); units > 0; units -= per) await write(units >= per ? block : block.subarray(0, units * u.length));
  await write(Buffer.from(suffix));
  z.end();
  await ended;
  return { data: Buffer.concat(out), size, crc };
}

/** A ZIP entry: its name, deflated bytes, and the expanded size and CRC its headers declare. */
export interface ZipPart { name: string; deflated: Deflated; declaredSize?: number }

/** A ZIP of deflated entries (method 8); `declaredSize` lets an entry's headers lie. */
export function deflatedZip(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name, 'utf8');
    const size = p.declaredSize ?? p.deflated.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(0, 6); local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0, 10); local.writeUInt32LE(p.deflated.crc, 14); local.writeUInt32LE(p.deflated.data.length, 18); local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26); local.writeUInt16LE(0, 28);
    locals.push(local, name, p.deflated.data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(0, 8); central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12); central.writeUInt32LE(p.deflated.crc, 16); central.writeUInt32LE(p.deflated.data.length, 20); central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + p.deflated.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(parts.length, 8); end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A small text deflated as one ZIP entry. */
export function deflatedText(text: string): Deflated {
  const b = Buffer.from(text, 'utf8');
  return { data: deflateRawSync(b), size: b.length, crc: crc32(b) };
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const DOC_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>`;
const DOC_TAIL = '</w:body></w:document>';

/** The package parts every DOCX here carries beside `word/document.xml`. */
function packageParts(): ZipPart[] {
  return [
    { name: '[Content_Types].xml', deflated: deflatedText('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>') },
    { name: '_rels/.rels', deflated: deflatedText('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>') },
  ];
}

/** A deflated DOCX of `paragraphs` (what Word writes: method 8 entries). */
export function deflatedDocx(paragraphs: string[]): Buffer {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${p}</w:t></w:r></w:p>`).join('');
  return deflatedZip([...packageParts(), { name: 'word/document.xml', deflated: deflatedText(DOC_HEAD + body + DOC_TAIL) }]);
}

/**
 * A DOCX zip bomb: `word/document.xml` of `expandedBytes` of repeated paragraphs (200 MB deflate
 * to about 200 KB). With `lie`, its headers declare 4 KiB instead.
 */
export async function docxBomb(expandedBytes: number, lie = false): Promise<Buffer> {
  const para = '<w:p><w:r><w:t xml:space="preserve">The quick brown fox jumps over the lazy dog, again and again.</w:t></w:r></w:p>';
  const doc = await deflateRepeated(DOC_HEAD, para, expandedBytes, DOC_TAIL, true);
  return deflatedZip([...packageParts(), { name: 'word/document.xml', deflated: doc, ...(lie ? { declaredSize: 4096 } : {}) }]);
}

/** A PDF of one page per `pages` entry, whose contents are raw content-stream bytes (a stream may be FlateDecode). */
function pdfOf(pages: Array<{ stream: Buffer; flate: boolean }>): Buffer {
  const n = pages.length;
  const kids = pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ');
  const font = 3 + n * 2;
  const objs: Buffer[] = [Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'), Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${n} >>`)];
  pages.forEach((p, i) => {
    objs.push(Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + i * 2} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`));
    objs.push(Buffer.concat([Buffer.from(`<< /Length ${p.stream.length}${p.flate ? ' /Filter /FlateDecode' : ''} >>\nstream\n`), p.stream, Buffer.from('\nendstream')]));
  });
  objs.push(Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'));
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let len = parts[0]!.length;
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(len);
    const b = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from('\nendobj\n')]);
    parts.push(b);
    len += b.length;
  });
  parts.push(Buffer.from(`xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
    + `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${len}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A PDF of `pages` pages, each with one line of text. */
export function pagedPdf(pages: string[]): Buffer {
  return pdfOf(pages.map((t) => ({ stream: Buffer.from(`BT /F1 12 Tf 72 720 Td (${t}) Tj ET`), flate: false })));
}

/** What a PDF bomb's content stream repeats (see `pdfBomb`). */
export type PdfBombKind = 'text' | 'off-page' | 'comments';

const PDF_BOMB_LINES: Record<PdfBombKind, string> = {
  text: '1 0 0 1 72 700 Tm (The quick brown fox jumps over the lazy dog again and again.) Tj\n',
  'off-page': '(The quick brown fox jumps over the lazy dog again and again.) Tj T*\n',
  comments: `%${'-'.repeat(78)}\n`,
};

/**
 * A one-page PDF whose FlateDecode content stream expands to `expandedBytes` (300 MB deflate to
 * about 1 MB). `text`: every line is drawn at the same place on the page, so all of it is text
 * pdfjs extracts; `off-page`: the lines run down off the page, which pdfjs skips while its heap
 * grows; `comments`: no text at all while pdfjs's decode buffers (outside the heap) grow.
 */
export async function pdfBomb(expandedBytes: number, kind: PdfBombKind = 'text'): Promise<Buffer> {
  const line = PDF_BOMB_LINES[kind];
  const s = await deflateRepeated('BT /F1 12 Tf 72 720 Td 14 TL\n', line, expandedBytes, 'ET\n', false);
  return pdfOf([{ stream: s.data, flate: true }]);
}
