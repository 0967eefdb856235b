/**
 * Incremental parser of an SSE byte stream into records (HTML "server-sent events" rules: `event:`
 * and `data:` fields, records separated by a blank line, `:` comments ignored, CRLF or LF). Pure.
 * `data` is parsed as JSON when it is JSON, else kept as text.
 */

/** One SSE record: `event` defaults to `message`. */
export interface SseRecord { event: string; data: unknown }

/** Feed text chunks, get complete records. */
export class SseParser {
  private buf = '';
  private event = '';
  private data: string[] = [];

  /** Parse what `chunk` completes. */
  push(chunk: string): SseRecord[] {
    this.buf += chunk;
    const out: SseRecord[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.charCodeAt(nl - 1) === 13 ? this.buf.slice(0, nl - 1) : this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line === '') { const r = this.dispatch(); if (r) out.push(r); continue; }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') this.event = value;
      else if (field === 'data') this.data.push(value);
    }
    return out;
  }

  /** The record left when the stream ends without a final blank line, if any. */
  end(): SseRecord[] {
    if (this.buf) { const rest = this.buf; this.buf = ''; this.push(`${rest}\n`); }
    const r = this.dispatch();
    return r ? [r] : [];
  }

  private dispatch(): SseRecord | null {
    if (this.data.length === 0) { this.event = ''; return null; }
    const text = this.data.join('\n');
    let data: unknown = text;
    try { data = JSON.parse(text); } catch { /* plain text data */ }
    const rec = { event: this.event || 'message', data };
    this.event = '';
    this.data = [];
    return rec;
  }
}
