/**
 * Messages between the router and its local-engine worker thread.
 */

/** Router -> worker. */
export type EngineRequest =
  | {
    type: 'generate'; id: number; modelPath: string; prompt: string; maxTokens: number;
    temperature: number; topP: number | null; seed: number | null; stop: string[];
  }
  | { type: 'abort'; id: number }
  | { type: 'shutdown' };

/** Worker -> router. */
export type EngineReply =
  | { type: 'text'; id: number; text: string; tokens: number }
  | { type: 'done'; id: number; promptTokens: number; completionTokens: number; finishReason: 'stop' | 'length' | 'abort'; loadMs: number }
  | { type: 'error'; id: number; message: string }
  | { type: 'closed' };

/** Engine settings handed to the worker. */
export interface EngineSettings { threads: number; contextSize: number }
