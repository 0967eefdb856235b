/**
 * Agent tools of the knowledge service (spec "Knowledge": `knowledge_search`, `wiki_read`,
 * `wiki_write`), for the agent runtime's tool registry: each is an OpenAI function schema plus
 * `execute(args, ctx)`, which calls this service's HTTP API with the caller's stamped headers
 * (`x-svc-principal`, `x-svc-turn-id`, `x-svc-cap-token`), so visibility and turn events apply to
 * the user exactly as through the gateway. Search results come back numbered with citations
 * (`[1]`, `[2]`, ...) the model is asked to use, and `citations` for the UI.
 *
 * Importable by the runtime (this file imports no service internals that open stores).
 */
import { request } from 'undici';

/** What the runtime hands to `execute`. */
export interface ToolContext {
  /** Base URL of the owning service (cfg.serviceUrls.knowledge or .memory). */
  baseUrl: string;
  /** The caller's stamped headers, forwarded as they are. */
  headers: Record<string, string>;
  signal?: AbortSignal;
  /** Per-call timeout, ms (default 15000). */
  timeoutMs?: number;
}

/** A citation the UI shows under an answer. */
export interface Citation { index: number; document_id: string; document_title: string; chunk_index: number; score: number }

/** What `execute` returns: `content` goes back to the model; `citations` to the UI. */
export interface ToolResult { content: string; isError?: boolean; citations?: Citation[] }

/** An agent tool: OpenAI function schema plus executor. */
export interface AgentTool {
  name: string;
  definition: { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } };
  execute(args: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/** Call a service route with the stamped headers; errors become tool errors the model can read. */
export async function callService(ctx: ToolContext, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<{ ok: boolean; status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  for (const k of ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token', 'x-correlation-id']) if (ctx.headers[k]) headers[k] = ctx.headers[k]!;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const timeout = ctx.timeoutMs ?? 15_000;
  const res = await request(`${ctx.baseUrl}${path}`, {
    method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), headersTimeout: timeout, bodyTimeout: timeout,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const text = await res.body.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* keep text */ }
  return { ok: res.statusCode >= 200 && res.statusCode < 300, status: res.statusCode, body: parsed };
}

/** A tool error result from a failed call. */
export function errorResult(r: { status: number; body: unknown }): ToolResult {
  const b = r.body as { error?: string; code?: string } | null;
  return { isError: true, content: JSON.stringify({ error: b?.error ?? `request failed with status ${r.status}`, code: b?.code ?? 'tool_call_failed' }) };
}

function obj(args: unknown): Record<string, unknown> {
  if (typeof args === 'string') { try { return JSON.parse(args) as Record<string, unknown>; } catch { return {}; } }
  return args && typeof args === 'object' ? args as Record<string, unknown> : {};
}

function badArgs(message: string): ToolResult { return { isError: true, content: JSON.stringify({ error: message, code: 'invalid_arguments' }) }; }

const TOPIC_PATTERN = '^[a-z0-9][a-z0-9._-]{0,127}$';

/** `knowledge_search`: hybrid search over the documents the user may read. */
export const knowledgeSearchTool: AgentTool = {
  name: 'knowledge_search',
  definition: {
    type: 'function',
    function: {
      name: 'knowledge_search',
      description: 'Search the documents the user can access (uploaded files, imported collections). Returns numbered passages; cite them in your answer as [1], [2] after the sentences they support. Search again with other words if nothing fits.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['query'],
        properties: {
          query: { type: 'string', description: 'What to look for, in natural language or keywords.' },
          limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Passages to return (default 5).' },
        },
      },
    },
  },
  async execute(args, ctx) {
    const a = obj(args);
    if (typeof a.query !== 'string' || !a.query.trim()) return badArgs('query must be a non-empty string');
    const limit = typeof a.limit === 'number' && Number.isInteger(a.limit) ? Math.min(20, Math.max(1, a.limit)) : 5;
    const r = await callService(ctx, 'POST', '/v1/knowledge/search', { query: a.query, limit });
    if (!r.ok) return errorResult(r);
    const results = (r.body as { results: Array<{ content: string; document_id: string; document_title: string; chunk_index: number; score: number; heading: string | null }> }).results;
    const citations: Citation[] = results.map((x, i) => ({ index: i + 1, document_id: x.document_id, document_title: x.document_title, chunk_index: x.chunk_index, score: x.score }));
    const passages = results.map((x, i) => ({ cite: `[${i + 1}]`, title: x.document_title, section: x.heading, document_id: x.document_id, chunk_index: x.chunk_index, text: x.content }));
    return {
      content: JSON.stringify(passages.length ? { passages, instructions: 'Cite passages as [n] after the statements they support; do not invent sources.' } : { passages: [], note: 'No accessible document matched.' }),
      citations,
    };
  },
};

/** `wiki_read`: read a wiki page by topic, or list pages when no topic is given. */
export const wikiReadTool: AgentTool = {
  name: 'wiki_read',
  definition: {
    type: 'function',
    function: {
      name: 'wiki_read',
      description: 'Read a wiki page by its topic slug, or list the wiki pages the user can read when topic is omitted.',
      parameters: { type: 'object', additionalProperties: false, properties: { topic: { type: 'string', pattern: TOPIC_PATTERN, description: 'Topic slug, e.g. "release-process".' } } },
    },
  },
  async execute(args, ctx) {
    const a = obj(args);
    if (a.topic === undefined) {
      const r = await callService(ctx, 'GET', '/v1/knowledge/wiki');
      if (!r.ok) return errorResult(r);
      const items = (r.body as { items: Array<{ topic: string; title: string; summary: string }> }).items;
      return { content: JSON.stringify({ pages: items.map((p) => ({ topic: p.topic, title: p.title, summary: p.summary })) }) };
    }
    if (typeof a.topic !== 'string' || !new RegExp(TOPIC_PATTERN).test(a.topic.toLowerCase())) return badArgs('topic must be a slug of letters, digits, . _ -');
    const r = await callService(ctx, 'GET', `/v1/knowledge/wiki/${encodeURIComponent(a.topic.toLowerCase())}`);
    if (!r.ok) return r.status === 404 ? { content: JSON.stringify({ found: false, topic: a.topic }) } : errorResult(r);
    const p = r.body as { topic: string; title: string; summary: string; tags: string[]; content: string; updated_at: string };
    return { content: JSON.stringify({ found: true, topic: p.topic, title: p.title, summary: p.summary, tags: p.tags, updated_at: p.updated_at, content: p.content }) };
  },
};

/** `wiki_write`: create or update a page (private to the user unless they say otherwise). */
export const wikiWriteTool: AgentTool = {
  name: 'wiki_write',
  definition: {
    type: 'function',
    function: {
      name: 'wiki_write',
      description: 'Create or update a Markdown wiki page by topic slug. Pages are private to the user unless visibility_mode says otherwise; only write when the user asked to record something.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['topic', 'title', 'content'],
        properties: {
          topic: { type: 'string', pattern: TOPIC_PATTERN },
          title: { type: 'string', maxLength: 500 },
          summary: { type: 'string', maxLength: 4000 },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
          content: { type: 'string', description: 'Markdown body.' },
          visibility_mode: { type: 'string', enum: ['private', 'restricted', 'shared'] },
          audience_tags: { type: 'array', items: { type: 'string' } },
          user_grants: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
  async execute(args, ctx) {
    const a = obj(args);
    if (typeof a.topic !== 'string' || typeof a.title !== 'string' || typeof a.content !== 'string') return badArgs('topic, title and content are required strings');
    const body: Record<string, unknown> = { topic: a.topic, title: a.title, content: a.content };
    for (const k of ['summary', 'tags', 'visibility_mode', 'audience_tags', 'user_grants']) if (a[k] !== undefined) body[k] = a[k];
    const r = await callService(ctx, 'POST', '/v1/knowledge/wiki', body);
    if (!r.ok) return errorResult(r);
    const p = r.body as { topic: string; title: string; visibility_mode: string; updated_at: string };
    return { content: JSON.stringify({ saved: true, created: r.status === 201, topic: p.topic, title: p.title, visibility_mode: p.visibility_mode, updated_at: p.updated_at }) };
  },
};

/** The knowledge tools, in registration order. */
export const knowledgeTools: readonly AgentTool[] = [knowledgeSearchTool, wikiReadTool, wikiWriteTool];

/** The context the agent runtime passes to a plug-in tool (structural; see agent-runtime contracts). */
export interface RuntimeToolContext {
  headers: Record<string, string>;
  serviceUrls: Record<string, string>;
  signal: AbortSignal;
}

/**
 * Adapt tools to the agent runtime's plug-in shape (`{definition, execute(args, ctx)}`, a thrown
 * error goes back to the model): the owning service's URL comes from the runtime's service map,
 * citations travel as a `citations` artifact the UI shows under the answer.
 */
export function runtimeTools(list: readonly AgentTool[], service: string): Array<{ definition: AgentTool['definition']; execute(args: Record<string, unknown>, ctx: RuntimeToolContext): Promise<string | { content: string; artifacts?: Array<Record<string, unknown>> }> }> {
  return list.map((tool) => ({
    definition: tool.definition,
    async execute(args: Record<string, unknown>, ctx: RuntimeToolContext) {
      const baseUrl = ctx.serviceUrls[service];
      if (!baseUrl) throw new Error(`${service} service is not configured`);
      const r = await tool.execute(args, { baseUrl, headers: ctx.headers, signal: ctx.signal });
      if (r.isError) throw new Error(r.content);
      return r.citations?.length ? { content: r.content, artifacts: [{ type: 'citations', tool: tool.name, citations: r.citations }] } : r.content;
    },
  }));
}

/** The knowledge tools in the agent runtime's plug-in shape (`knowledge_search`, `wiki_read`, `wiki_write`). */
export const tools = runtimeTools(knowledgeTools, 'knowledge');
