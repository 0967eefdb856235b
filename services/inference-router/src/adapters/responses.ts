/**
 * Adapter `responses`: the provider speaks the OpenAI Responses API (`POST {base_url}/responses`).
 * Chat requests are translated to Responses requests (messages -> input items, function tools,
 * tool calls and tool results both ways, max_tokens -> max_output_tokens) and answers back to
 * chat.completion / chat.completion.chunk, so clients see one API whatever the provider speaks.
 */
import { readText, send, splitSse, versionFromHeaders } from './http.js';
import { toUsage } from './chat-completions.js';
import {
  UpstreamError, type Backend, type ChatMessage, type ChatRequest, type CompleteResult, type StreamPiece, type StreamResult, type Usage,
} from '../domain/upstream.js';
import type { Adapter, CallOptions } from './adapter.js';

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => p.text ?? '').join('');
  return '';
}

function partsOf(m: ChatMessage): unknown {
  if (!Array.isArray(m.content)) return textOf(m.content);
  const kind = m.role === 'assistant' ? 'output_text' : 'input_text';
  return m.content.map((p) => {
    if (p.type === 'text') return { type: kind, text: p.text ?? '' };
    if (p.type === 'image_url') {
      const iu = p.image_url as { url?: string; detail?: string } | string | undefined;
      return { type: 'input_image', image_url: typeof iu === 'string' ? iu : iu?.url, ...(typeof iu === 'object' && iu?.detail ? { detail: iu.detail } : {}) };
    }
    return p;
  });
}

/** Translate a chat request to a Responses request body. Pure. */
export function toResponsesRequest(req: ChatRequest, model: string, stream: boolean): Record<string, unknown> {
  const input: unknown[] = [];
  const instructions: string[] = [];
  for (const m of req.messages) {
    if (m.role === 'system' || m.role === 'developer') { instructions.push(textOf(m.content)); continue; }
    if (m.role === 'tool') { input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: textOf(m.content) }); continue; }
    if (m.role === 'assistant') {
      const text = textOf(m.content);
      if (text) input.push({ role: 'assistant', content: text });
      for (const t of m.tool_calls ?? []) input.push({ type: 'function_call', call_id: t.id, name: t.function.name, arguments: t.function.arguments });
      continue;
    }
    input.push({ role: 'user', content: partsOf(m) });
  }
  const out: Record<string, unknown> = { model, input, stream };
  if (instructions.length) out.instructions = instructions.join('\n\n');
  const max = req.max_completion_tokens ?? req.max_tokens;
  if (typeof max === 'number') out.max_output_tokens = max;
  if (typeof req.temperature === 'number') out.temperature = req.temperature;
  if (typeof req.top_p === 'number') out.top_p = req.top_p;
  if (req.tools?.length) {
    out.tools = req.tools.filter((t) => t.type === 'function').map((t) => ({
      type: 'function', name: t.function.name, description: t.function.description, parameters: t.function.parameters ?? { type: 'object', properties: {} },
      ...(t.function.strict !== undefined ? { strict: t.function.strict } : {}),
    }));
  }
  if (req.tool_choice !== undefined) {
    const tc = req.tool_choice as string | { type?: string; function?: { name?: string } };
    out.tool_choice = typeof tc === 'string' ? tc : { type: 'function', name: tc.function?.name };
  }
  if (req.user !== undefined) out.user = req.user;
  return out;
}

interface RespOutputItem { type: string; role?: string; content?: Array<{ type: string; text?: string }>; call_id?: string; id?: string; name?: string; arguments?: string }

/** Translate a Responses answer to a chat.completion body. Pure. */
export function fromResponsesAnswer(r: Record<string, unknown>, model: string): { body: Record<string, unknown>; usage: Usage | null } {
  const output = (Array.isArray(r.output) ? r.output : []) as RespOutputItem[];
  let text = '';
  const toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  for (const item of output) {
    if (item.type === 'message') for (const c of item.content ?? []) { if (c.type === 'output_text') text += c.text ?? ''; }
    if (item.type === 'function_call') toolCalls.push({ id: item.call_id ?? item.id ?? '', type: 'function', function: { name: item.name ?? '', arguments: item.arguments ?? '' } });
  }
  const usage = toUsage(r.usage);
  const message: Record<string, unknown> = { role: 'assistant', content: text || null };
  if (toolCalls.length) message.tool_calls = toolCalls;
  return {
    body: {
      id: typeof r.id === 'string' ? r.id : `chatcmpl-${Date.now()}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000),
      model: typeof r.model === 'string' ? r.model : model,
      choices: [{ index: 0, message, finish_reason: toolCalls.length ? 'tool_calls' : r.status === 'incomplete' ? 'length' : 'stop' }],
      ...(usage ? { usage } : {}),
    },
    usage,
  };
}

/** The responses adapter. */
export const responsesAdapter: Adapter = {
  async complete(b: Backend, req: ChatRequest, call: CallOptions): Promise<CompleteResult> {
    const res = await send(call.dispatcher, `${b.baseUrl}/responses`, {
      method: 'POST', body: JSON.stringify(toResponsesRequest(req, b.model, false)), apiKey: b.apiKey, traceparent: call.traceparent, signal: call.signal, timeoutMs: call.timeoutMs,
    });
    let json: Record<string, unknown>;
    try { json = JSON.parse(await readText(res.body, 64 * 1024 * 1024)) as Record<string, unknown>; } catch (err) {
      if (err instanceof UpstreamError) throw err;
      throw new UpstreamError(`${b.providerName} answered something other than JSON`, 'bad_response');
    }
    const { body, usage } = fromResponsesAnswer(json, b.model);
    return { body, usage, providerVersion: versionFromHeaders(res.headers) };
  },

  async stream(b: Backend, req: ChatRequest, call: CallOptions): Promise<StreamResult> {
    const res = await send(call.dispatcher, `${b.baseUrl}/responses`, {
      method: 'POST', body: JSON.stringify(toResponsesRequest(req, b.model, true)), apiKey: b.apiKey, traceparent: call.traceparent, signal: call.signal,
      timeoutMs: call.timeoutMs, accept: 'text/event-stream',
    });
    const wantsUsage = req.stream_options?.include_usage === true;
    let id = `chatcmpl-${Date.now()}`;
    let model = b.model;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: object, finish: string | null = null): string =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    async function* pieces(): AsyncIterable<StreamPiece> {
      let rest = '';
      let started = false;
      let toolIndex = 0;
      let sawTool = false;
      const calls = new Map<string, { index: number; streamed: boolean }>();
      res.body.setEncoding('utf8');
      for await (const c of res.body as AsyncIterable<string>) {
        const split = splitSse(rest + c);
        rest = split.rest;
        let out = ''; let content = false; let usage: Usage | null = null;
        for (const ev of split.events) {
          let j: Record<string, unknown>;
          try { j = JSON.parse(ev.data) as Record<string, unknown>; } catch { continue; }
          const type = String(j.type ?? ev.event ?? '');
          if (!started) { started = true; out += chunk({ role: 'assistant', content: '' }); }
          if (type === 'response.created') {
            const r = j.response as { id?: string; model?: string } | undefined;
            if (r?.id) id = r.id;
            if (r?.model) model = r.model;
          } else if (type === 'response.output_text.delta') {
            const d = String(j.delta ?? '');
            if (d) { out += chunk({ content: d }); content = true; }
          } else if (type === 'response.output_item.added' || type === 'response.output_item.done') {
            const item = j.item as RespOutputItem | undefined;
            if (item?.type !== 'function_call') continue;
            const key = item.id ?? item.call_id ?? String(toolIndex);
            let st = calls.get(key);
            if (!st) {
              st = { index: toolIndex++, streamed: false };
              calls.set(key, st);
              sawTool = true;
              out += chunk({ tool_calls: [{ index: st.index, id: item.call_id ?? key, type: 'function', function: { name: item.name ?? '', arguments: '' } }] });
              content = true;
            }
            if (type === 'response.output_item.done' && !st.streamed && item.arguments) {
              out += chunk({ tool_calls: [{ index: st.index, function: { arguments: item.arguments } }] });
            }
          } else if (type === 'response.function_call_arguments.delta') {
            const key = String(j.item_id ?? '');
            const st = calls.get(key);
            if (st) { st.streamed = true; out += chunk({ tool_calls: [{ index: st.index, function: { arguments: String(j.delta ?? '') } }] }); }
          } else if (type === 'response.completed' || type === 'response.incomplete') {
            const r = j.response as { usage?: unknown; status?: string } | undefined;
            usage = toUsage(r?.usage);
            out += chunk({}, sawTool ? 'tool_calls' : type === 'response.incomplete' ? 'length' : 'stop');
            if (usage && wantsUsage) out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`;
            out += 'data: [DONE]\n\n';
          } else if (type === 'response.failed' || type === 'error') {
            const e = (j.response as { error?: { message?: string } } | undefined)?.error ?? (j as { message?: string });
            out += `data: ${JSON.stringify({ error: { message: `provider failed: ${e?.message ?? 'unknown error'}`, code: 'backend_unavailable' } })}\n\n`;
          }
        }
        if (out || usage) yield { sse: out, content, usage };
      }
    }
    return { providerVersion: versionFromHeaders(res.headers), pieces: pieces() };
  },
};
