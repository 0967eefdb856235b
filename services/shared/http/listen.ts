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

/**
 * Listen with a built app and the service's `close` (stores, timers); on close the app drains
 * first, then `close` runs and the log is flushed. If listening fails, `close` runs and the error
 * is rethrown (for example the port is taken).
 */
export async function listenBuilt(
  built: { app: FastifyInstance; close: () => Promise<void> | void },
  cfg: { host: string; port: number },
  logger: { flush(cb?: (err?: Error) => void): void },
): Promise<RunningService> {
  try {
    return await listenService(built.app, cfg.host, cfg.port, async () => {
      await built.close();
      await new Promise<void>((resolve) => { logger.flush(() => resolve()); });
    });
  } catch (err) {
    await built.close();
    throw err;
  }
}
