/**
 * The tail of a service's log file with secrets redacted (issue 19 item 1,
 * `GET /v1/admin/services/{name}/logs?lines=`). Pino already censors known fields
 * (services/shared/log.ts); this pass also masks bearer tokens, JWTs, PEM blocks, `key=value`
 * pairs whose key names a secret, and long hex/base64 runs, wherever they appear in a line.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

const MASK = '[redacted]';
const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g, MASK],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${MASK}`],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, MASK],
  [/("?[A-Za-z0-9_-]*(?:password|passphrase|secret|token|api[_-]?key|authorization|cookie|private[_-]?key|credential)[A-Za-z0-9_-]*"?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^\s,}&]+)/gi, `$1"${MASK}"`],
  [/\b(?:sk|pk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{16,}\b/g, MASK],
  [/\b[A-Fa-f0-9]{40,}\b/g, MASK],
  [/\b[A-Za-z0-9+/]{40,}={0,2}/g, MASK],
];

/** `line` with every secret-like value replaced by `[redacted]`. */
export function redactLine(line: string): string {
  let out = line;
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
  return out;
}

/**
 * The last `lines` lines of `file` (at most the last 4 MiB read), each redacted; [] when absent.
 * @param lines 1..5000.
 */
export function tailLog(file: string, lines: number): string[] {
  if (!existsSync(file)) return [];
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const want = Math.min(size, 4 * 1024 * 1024);
    const buf = Buffer.alloc(want);
    readSync(fd, buf, 0, want, size - want);
    const all = buf.toString('utf8').split('\n').filter((l) => l.length > 0);
    if (want < size) all.shift();
    return all.slice(-lines).map(redactLine);
  } finally { closeSync(fd); }
}
