/** Pure parts of the knowledge service: chunking, multipart, parsers, format detection. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkText } from '../../../services/knowledge/src/domain/chunking.js';
import { MultipartError, boundaryOf, parseMultipart } from '../../../services/knowledge/src/domain/multipart.js';
import { detectFormat, extractText, htmlToText, parseCsv, ParseError } from '../../../services/knowledge/src/domain/parsers.js';
import { makeDocx, makePdf, multipart } from '../../helpers/embedder/documents.js';

test('chunking: sections carry heading paths, long blocks split at sentences with overlap, size bound holds', () => {
  const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i} states one fact.`).join(' ');
  const chunks = chunkText(`# Guide\nIntro text.\n\n## Setup\n${long}\n\n# Appendix\nEnd.`, { maxChars: 300, overlapChars: 60 });
  assert.equal(chunks[0]!.heading, 'Guide');
  assert.equal(chunks[0]!.content, 'Intro text.');
  const setup = chunks.filter((c) => c.heading === 'Guide > Setup');
  assert.ok(setup.length >= 5);
  for (const c of chunks) assert.ok(c.content.length <= 300 + 60, `chunk ${c.index} is ${c.content.length}`);
  for (let i = 1; i < setup.length; i++) {
    const prevLast = setup[i - 1]!.content.split(/(?<=\.) /).pop()!;
    const head = setup[i]!.content.slice(0, 60 + prevLast.length);
    assert.ok(head.includes(prevLast), 'the next chunk starts with the tail of the previous one');
  }
  assert.equal(chunks.at(-1)!.heading, 'Appendix');
  assert.deepEqual(chunks.map((c) => c.index), chunks.map((_, i) => i));
  assert.deepEqual(chunkText('   \n\n ', { maxChars: 100, overlapChars: 10 }), []);
});

test('multipart: fields, files, quoted names, RFC 5987 filenames; malformed bodies rejected', () => {
  const m = multipart({ title: 'Hé', tenant_id: 't' }, { filename: 'a "b".txt', contentType: 'text/plain', data: Buffer.from('line1\r\n--not-a-boundary\r\n') });
  const b = boundaryOf(m.contentType)!;
  const f = parseMultipart(m.body, b);
  assert.deepEqual(f.fields, { title: 'Hé', tenant_id: 't' });
  assert.equal(f.files[0]!.data.toString(), 'line1\r\n--not-a-boundary\r\n');
  const star = Buffer.from(`--x\r\nContent-Disposition: form-data; name="file"; filename="f.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt\r\n\r\nhi\r\n--x--\r\n`);
  assert.equal(parseMultipart(star, 'x').files[0]!.filename, 'résumé.txt');
  assert.throws(() => parseMultipart(Buffer.from('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated'), 'x'), MultipartError);
  assert.throws(() => parseMultipart(Buffer.from('nothing'), 'x'), MultipartError);
  assert.equal(boundaryOf('application/json'), null);
  assert.equal(boundaryOf('multipart/form-data; boundary="q b"'), 'q b');
});

test('parsers: PDF, DOCX, HTML, CSV, detection and failures', async () => {
  const pdf = await extractText('pdf', makePdf(['Alpha line.', 'Beta line.'], 'My Title'));
  assert.match(pdf.text, /Alpha line\.\nBeta line\./);
  assert.equal(pdf.title, 'My Title');
  const docx = await extractText('docx', makeDocx('Heading', ['Para one.', 'Para two.']));
  assert.equal(docx.text, '# Heading\n\nPara one.\n\nPara two.');
  const html = htmlToText('<html><head><title>T &amp; U</title><script>x()</script></head><body><h2>Sub</h2><p>a&nbsp;b &#233;</p><ul><li>one</li></ul></body></html>');
  assert.equal(html.title, 'T & U');
  assert.equal(html.text, '## Sub\n\na b é\n\n- one');
  assert.deepEqual(parseCsv('a,b\r\n"x, ""y""",2\n\n3,4'), [['a', 'b'], ['x, "y"', '2'], ['3', '4']]);
  assert.equal(detectFormat('x.PDF', null, Buffer.from('%PDF-1.7')), 'pdf');
  assert.equal(detectFormat('notes', 'text/markdown', Buffer.from('# hi')), 'markdown');
  assert.equal(detectFormat('zip.zip', null, Buffer.from('PK\x03\x04')), null);
  assert.equal(detectFormat(null, null, Buffer.from([0, 1, 2])), null);
  await assert.rejects(extractText('pdf', Buffer.from('%PDF-1.4 garbage')), ParseError);
  await assert.rejects(extractText('docx', Buffer.from('PK garbage')), ParseError);
  await assert.rejects(extractText('text', Buffer.from('   ')), ParseError);
});
