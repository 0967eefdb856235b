/**
 * A small Server-Sent Events reader (the WHATWG event-stream format: `event:`/`data:` fields, a
 * blank line ends a record, `:` lines are comments) for streams read with `fetch`: EventSource
 * cannot send the bearer header, so the notification stream is fetched like the chat stream.
 * Pure; unit-tested in Node.
 */

/** One record: its `event` name (default `message`) and its `data` lines joined by `\n`. */
export interface SseRecord { event: string; data: string }

/** Feeds text chunks in, takes whole records out. */
export class SseReader {
  private buf = '';
  private event = '';
  private data: string[] = [];

  /** Add a chunk; returns the records it completed. */
  push(chunk: string): SseRecord[] {
    this.buf += chunk;
    const out: SseRecord[] = [];
    for (;;) {
      const nl = this.buf.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + (this.buf.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (this.data.length) out.push({ event: this.event || 'message', data: this.data.join('\n') });
        this.event = '';
        this.data = [];
        continue;
      }
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
}
