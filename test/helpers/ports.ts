/** A free loopback TCP port for a test engine (slapd, dovecot) that must be told its port up front. */
import { createServer } from 'node:net';

/** Ask the kernel for a free port on 127.0.0.1 and release it. */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}
