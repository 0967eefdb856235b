/**
 * Structure-aware chunking with overlap (docs/decisions-knowledge.md "Chunking").
 *
 * The text is split into blocks: Markdown headings (`#`..`######`) open sections and set the heading
 * path carried by every chunk of the section; blank lines separate paragraphs; table rows and list
 * items stay whole. Blocks are packed into chunks of at most `maxChars`; a block larger than that is
 * cut at sentence ends (then at spaces). Each chunk after the first of a section starts with the
 * last sentences of the previous chunk, up to `overlapChars`, so a fact cut at a border is whole in
 * one of the two. A chunk never spans two sections.
 */

/** One chunk: its text and the heading path of its section (`A > B`), or null. */
export interface Chunk { index: number; heading: string | null; content: string }

/** Options: target size and overlap, in characters. */
export interface ChunkOptions { maxChars: number; overlapChars: number }

const SENTENCE_END = /(?<=[.!?;])\s+(?=[("'A-Z0-9\u00C0-\u024F])/g;

/** Split text at sentence ends, then cut any piece still longer than `max` at spaces. */
export function sentences(text: string, max: number): string[] {
  const out: string[] = [];
  for (const s of text.split(SENTENCE_END)) {
    if (s.length <= max) { if (s.trim()) out.push(s.trim()); continue; }
    let rest = s;
    while (rest.length > max) {
      let cut = rest.lastIndexOf(' ', max);
      if (cut < max / 2) cut = max;
      out.push(rest.slice(0, cut).trim());
      rest = rest.slice(cut);
    }
    if (rest.trim()) out.push(rest.trim());
  }
  return out;
}

interface Section { heading: string | null; blocks: string[] }

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\f' || c === '\v' || c === '\u00a0' || /\s/.test(c);

/**
 * An ATX heading line (`#`..`######`, a space, text, optional closing `#`s): its level and text,
 * or null. A scan in linear time: the pattern it replaces, `^(#{1,6})\s+(.+?)\s*#*\s*$`, took
 * time quadratic in a line of many spaces (issue 11 item 5: chunking runs on untrusted text).
 */
export function atxHeading(line: string): { level: number; text: string } | null {
  let level = 0;
  while (level < line.length && line[level] === '#') level++;
  if (level < 1 || level > 6 || level >= line.length || !isSpace(line[level]!)) return null;
  let start = level;
  while (start < line.length && isSpace(line[start]!)) start++;
  // Only spaces after the #s: the old pattern took the second one as the text (none when one).
  if (start === line.length) return line.length - level >= 2 ? { level, text: line[level + 1]! } : null;
  let end = line.length;
  while (end > start && isSpace(line[end - 1]!)) end--;
  let close = end;
  while (close > start && line[close - 1] === '#') close--;
  // A closing run of #s goes with the spaces before it; a text of only #s keeps its first one.
  if (close === start) close = start + 1;
  else while (close > start && isSpace(line[close - 1]!)) close--;
  return { level, text: line.slice(start, close) };
}

function sectionsOf(text: string): Section[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const sections: Section[] = [];
  const path: string[] = [];
  let cur: Section = { heading: null, blocks: [] };
  let para: string[] = [];
  const flush = (): void => { const p = para.join('\n').trim(); if (p) cur.blocks.push(p); para = []; };
  for (const line of lines) {
    const h = atxHeading(line);
    if (h) {
      flush();
      if (cur.blocks.length) sections.push(cur);
      const level = h.level;
      path.length = Math.min(path.length, level - 1);
      path[level - 1] = h.text;
      cur = { heading: path.filter(Boolean).join(' > '), blocks: [] };
      continue;
    }
    if (!line.trim()) { flush(); continue; }
    para.push(line);
  }
  flush();
  if (cur.blocks.length) sections.push(cur);
  return sections;
}

function tail(text: string, max: number): string {
  if (max <= 0) return '';
  const parts = sentences(text, Number.MAX_SAFE_INTEGER);
  let out = '';
  for (let i = parts.length - 1; i >= 0; i--) {
    const next = out ? `${parts[i]} ${out}` : parts[i]!;
    if (next.length > max) break;
    out = next;
  }
  return out;
}

/** Chunk `text`. Empty text gives no chunks. */
export function chunkText(text: string, opts: ChunkOptions): Chunk[] {
  const out: Chunk[] = [];
  for (const sec of sectionsOf(text)) {
    let buf = '';
    let fresh = false; // buf holds text beyond the carried overlap
    const emit = (): void => {
      if (!buf.trim()) return;
      out.push({ index: out.length, heading: sec.heading, content: buf.trim() });
      buf = tail(buf, opts.overlapChars);
      fresh = false;
    };
    const pieces: Array<{ text: string; sep: string }> = [];
    for (const b of sec.blocks) {
      if (b.length <= opts.maxChars) pieces.push({ text: b, sep: '\n\n' });
      else sentences(b, opts.maxChars).forEach((s, i) => pieces.push({ text: s, sep: i === 0 ? '\n\n' : ' ' }));
    }
    for (const p of pieces) {
      if (fresh && buf.length + p.sep.length + p.text.length > opts.maxChars) emit();
      buf = buf ? `${buf}${fresh ? p.sep : ' '}${p.text}` : p.text;
      fresh = true;
    }
    if (fresh) emit();
  }
  return out;
}
