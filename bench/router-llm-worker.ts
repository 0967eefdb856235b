/**
 * Benchmark worker: the scripted OpenAI-compatible server (test/helpers/scripted-llm.ts) in its own
 * thread, so the provider, the router, the gateway and the load generator do not share an event loop.
 * workerData `{chunks, chunkDelayMs?}`: every reply streams `chunks` pieces of 4 characters, `chunkDelayMs` apart.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startScriptedLlm } from '../test/helpers/scripted-llm.js';

const { chunks, chunkDelayMs } = workerData as { chunks: number; chunkDelayMs?: number };
const llm = await startScriptedLlm({ script: () => ({ content: 'tok '.repeat(chunks), chunkSize: 4, chunkDelayMs: chunkDelayMs ?? 0, usage: { prompt_tokens: 3, completion_tokens: chunks } }) });
parentPort!.on('message', (m: string) => { if (m === 'close') void llm.close().then(() => process.exit(0)); });
parentPort!.postMessage({ port: new URL(llm.url).port });
