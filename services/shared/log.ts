/**
 * pino logging with secret redaction, one file per service under `<dataDir>/logs/`.
 *
 * Secrets never reach logs: authorization headers, stamped identity headers, cookies, passwords,
 * tokens and keys are censored wherever they appear in the first levels of a log object.
 */
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';

/** Paths pino censors (`[redacted]`). */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-svc-principal"]',
  'req.headers["x-svc-cap-token"]',
  'headers.authorization',
  'headers["x-svc-principal"]',
  'headers["x-svc-cap-token"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.api_key',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.secret',
  '*.client_secret',
  '*.signing_key',
  '*.handoff_id',
  'password',
  'api_key',
  'access_token',
  'refresh_token',
  'secret',
];

/**
 * Create the service logger. `destination` `'stderr'` logs to standard error (tests), a directory
 * logs to `<dir>/<service>.log`, `null` discards.
 */
export function createLogger(service: string, level: string, destination: string | 'stderr' | null): Logger {
  const opts = { name: service, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  if (destination === null) return pino({ ...opts, enabled: false });
  if (destination === 'stderr') return pino(opts, pino.destination({ fd: 2, sync: false }));
  mkdirSync(destination, { recursive: true });
  // Open the file here, synchronously: an asynchronous open can race a caller that removes the
  // directory right after close (tests) and then throws at exit.
  const fd = openSync(join(destination, `${service}.log`), 'a', 0o600);
  return pino(opts, pino.destination({ fd, sync: false }));
}
