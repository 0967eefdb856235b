/**
 * Benchmark worker thread: imports `workerData.module`, calls its `start(cfg)` and reports the port,
 * so services run in worker threads as they do under the supervisor.
 */
import { parentPort, workerData } from 'node:worker_threads';

const { module, cfg } = workerData as { module: string; cfg: unknown };
const mod = await import(module) as { start: (c: unknown) => Promise<{ port: number; close(): Promise<void> }> };
const running = await mod.start(cfg);
parentPort!.on('message', (m: string) => { if (m === 'close') void running.close().then(() => process.exit(0)); });
parentPort!.postMessage({ port: running.port });
