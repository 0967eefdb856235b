/**
 * Listen helper shared by every service's `start(cfg)`.
 */
import type { FastifyInstance } from 'fastify';
import type { RunningService } from '../runtime.js';

/**
 * Listen on `host:port` (0 = ephemeral) and return the bound port with a `close()` that runs
 * `onClose` (stores, timers) after the server has drained.
 */
export async function listenService(app: FastifyInstance, host: string, port: number, onClose: () => Promise<void> | void = () => {}): Promise<RunningService> {
  await app.listen({ host, port });
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  let closing: Promise<void> | null = null;
  return {
    port: bound,
    close: () => {
      closing ??= (async () => {
        await app.close();
        await onClose();
      })();
      return closing;
    },
  };
}
