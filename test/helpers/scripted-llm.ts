/**
 * The scripted OpenAI-compatible server: the only test double of this project (it stands in for an
 * LLM provider, which is outside the product). Real HTTP on port 0.
 *
 * Routes: `GET /models` (and `/v1/models`), `POST /chat/completions` (JSON or SSE when `stream`),
 * `POST /responses` (JSON or SSE), `POST /embeddings`. Each chat request is answered by `script`:
 * return text, tool calls, an HTTP error, or a delay. Every request body is recorded in `requests`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A tool call the model makes. */
export interface ScriptedToolCall { id: string; name: string; arguments: string }

/** What the scripted model answers to one request. */
export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Answer with this HTTP status and body instead. */
  status?: number;
  errorBody?: unknown;
  /** Delay before the first byte, ms. */
  delayMs?: number;
  /** Delay between streamed chunks, ms. */
  chunkDelayMs?: number;
  /** Split content into chunks of this many characters when streaming (default 4). */
  chunkSize?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Reasoning text streamed before the content as `reasoning_content` deltas (chat completions). */
  reasoning?: string;
}

/** A recorded request. */
export interface RecordedRequest { path: string; body: Record<string, unknown>; headers: IncomingMessage['headers'] }

/** Options of the server. */
export interface ScriptedLlmOptions {
  /** Model ids listed by /models (default ["scripted-model"]). */
  models?: string[];
  /** Reply per request (default: echo the last user message as "echo: ..."). */
  script?: (req: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;
  /** Embedding width (default 8). */
  embeddingDims?: number;
}

/** A running scripted server. */
export interface ScriptedLlm {
  /** Base URL including `/v1`, as OpenAI clients expect. */
  baseUrl: string;
  url: string;
  requests: RecordedRequest[];
  setScript(fn: ScriptedLlmOptions['script']): void;
  close(): Promise<void>;
}

function lastUserText(body: Record<string, unknown>): string {
  const msgs = (body.messages ?? body.input) as Array<{ role: string; content: unknown }> | string | undefined;
  if (typeof msgs === 'string') return msgs;
  const last = [...(msgs ?? [])].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  if (Array.isArray(last.content)) return last.content.map((p: { text?: string }) => p.text ?? '').join('');
  return '';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Start the scripted server. */
export async function startScriptedLlm(opts: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const models = opts.models ?? ['scripted-model'];
  let script = opts.script ?? ((r: RecordedRequest): ScriptedReply => ({ content: `echo: ${lastUserText(r.body)}` }));
  const requests: RecordedRequest[] = [];
  const dims = opts.embeddingDims ?? 8;

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!.replace(/^\/v1/, '');
    if (req.method === 'GET' && path === '/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'scripted' })) }));
      return;
    }
    let body: Record<string, unknown> = {};
    try { body = raw ? JSON.parse(raw) as Record<string, unknown> : {}; } catch { res.writeHead(400); res.end('{"error":{"message":"bad json"}}'); return; }
    const rec = { path, body, headers: req.headers };
    requests.push(rec);
    if (req.method === 'POST' && path === '/embeddings') {
      const input = Array.isArray(body.input) ? body.input as string[] : [String(body.input ?? '')];
      const data = input.map((text, index) => {
        const v = Array.from({ length: dims }, (_, i) => Math.sin((text.length + 1) * (i + 1)));
        return { object: 'embedding', index, embedding: v };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: input.join(' ').split(/\s+/).length, total_tokens: input.join(' ').split(/\s+/).length } }));
      return;
    }
    if (req.method !== 'POST' || (path !== '/chat/completions' && path !== '/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not found"}}');
      return;
    }
    const reply = await script(rec);
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.errorBody ?? { error: { message: `scripted ${reply.status}` } }));
      return;
    }
    const content = reply.content ?? '';
    const usage = reply.usage ?? { prompt_tokens: lastUserText(body).split(/\s+/).filter(Boolean).length, completion_tokens: content.split(/\s+/).filter(Boolean).length };
    const model = String(body.model ?? models[0]);
    const created = Math.floor(Date.now() / 1000);
    const id = `chatcmpl-${requests.length}`;
    if (path === '/responses') {
      const output: unknown[] = [];
      if (content) output.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: content }] });
      for (const t of reply.toolCalls ?? []) output.push({ type: 'function_call', call_id: t.id, name: t.name, arguments: t.arguments });
      const u = { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, total_tokens: usage.prompt_tokens + usage.completion_tokens };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, object: 'response', model, output, usage: u }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (type: string, data: object): void => { res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`); };
      send('response.created', { response: { id, model } });
      const size = reply.chunkSize ?? 4;
      for (let i = 0; i < content.length; i += size) {
        send('response.output_text.delta', { delta: content.slice(i, i + size) });
        if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      }
      for (const t of reply.toolCalls ?? []) send('response.output_item.done', { item: { type: 'function_call', call_id: t.id, name: t.name, arguments: t.arguments } });
      send('response.completed', { response: { id, model, output, usage: u } });
      res.end();
      return;
    }
    const toolCalls = (reply.toolCalls ?? []).map((t, index) => ({ index, id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } }));
    const finish = toolCalls.length ? 'tool_calls' : 'stop';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id, object: 'chat.completion', created, model,
        choices: [{ index: 0, message: { role: 'assistant', content: content || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: finish }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finishReason: string | null = null, extra: object = {}): void => {
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    };
    chunk({ role: 'assistant', content: '' });
    const size = reply.chunkSize ?? 4;
    for (let i = 0; i < (reply.reasoning ?? '').length; i += size) {
      chunk({ reasoning_content: reply.reasoning!.slice(i, i + size) });
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    for (let i = 0; i < content.length; i += size) {
      chunk({ content: content.slice(i, i + size) });
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    for (const t of toolCalls) {
      chunk({ tool_calls: [{ index: t.index, id: t.id, type: 'function', function: { name: t.function.name, arguments: '' } }] });
      chunk({ tool_calls: [{ index: t.index, function: { arguments: t.function.arguments } }] });
    }
    chunk({}, finish);
    if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`);
    }
    res.write('data: [DONE]\n\n');
    res.end();
  }

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { raw += c; });
    req.on('end', () => { handle(req, res, raw).catch((err: unknown) => { res.writeHead(500); res.end(String(err)); }); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript: (fn) => { if (fn) script = fn; },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
