/**
 * A small multipart/form-data parser (RFC 7578) over a buffered body. @fastify/multipart is not a
 * dependency of the project; the upload routes buffer the body (bounded by the route's body limit)
 * and split it here. Parts: `Content-Disposition: form-data; name="..."[; filename="..."]`,
 * optional `Content-Type`. Text fields are UTF-8.
 *
 * Errors: `MultipartError` (400 `invalid_request` at the route).
 */

/** A file part. */
export interface FilePart { field: string; filename: string; contentType: string | null; data: Buffer }

/** The parsed form. Repeated text fields keep the last value. */
export interface ParsedForm { fields: Record<string, string>; files: FilePart[] }

/** The body is not well-formed multipart. */
export class MultipartError extends Error {
  constructor(message: string) { super(message); this.name = 'MultipartError'; }
}

/** The boundary of a `multipart/form-data` Content-Type, or null. */
export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return null;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

function param(header: string, name: string): string | null {
  // filename*=UTF-8''... (RFC 5987) wins over filename=
  const star = new RegExp(`${name}\\*=(?:UTF-8|utf-8)''([^;]+)`).exec(header);
  if (star) { try { return decodeURIComponent(star[1]!.trim()); } catch { /* fall through */ } }
  const m = new RegExp(`(?:^|;)\\s*${name}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, 'i').exec(header);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!.trim();
}

/**
 * Parse `body` with `boundary`.
 * @throws MultipartError on a missing boundary, an unterminated body or a part without a name.
 */
export function parseMultipart(body: Buffer, boundary: string): ParsedForm {
  const delim = Buffer.from(`--${boundary}`);
  const out: ParsedForm = { fields: {}, files: [] };
  let pos = body.indexOf(delim);
  if (pos < 0) throw new MultipartError('multipart body lacks its boundary');
  for (;;) {
    pos += delim.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return out; // closing "--"
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) pos += 2;
    else throw new MultipartError('malformed multipart boundary line');
    const headEnd = body.indexOf('\r\n\r\n', pos);
    if (headEnd < 0) throw new MultipartError('multipart part without headers end');
    const headers = body.subarray(pos, headEnd).toString('utf8').split('\r\n');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), headEnd + 4);
    if (next < 0) throw new MultipartError('multipart body is not terminated');
    const data = body.subarray(headEnd + 4, next);
    let disposition = '';
    let ctype: string | null = null;
    for (const h of headers) {
      const i = h.indexOf(':');
      if (i < 0) continue;
      const k = h.slice(0, i).trim().toLowerCase();
      if (k === 'content-disposition') disposition = h.slice(i + 1).trim();
      else if (k === 'content-type') ctype = h.slice(i + 1).trim();
    }
    const name = param(disposition, 'name');
    if (!name) throw new MultipartError('multipart part without a name');
    const filename = param(disposition, 'filename');
    if (filename !== null) out.files.push({ field: name, filename, contentType: ctype, data: Buffer.from(data) });
    else out.fields[name] = data.toString('utf8');
    pos = next + 2;
  }
}
