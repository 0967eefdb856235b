/**
 * Agent tools of the knowledge service (spec "Knowledge": `knowledge_search`, `wiki_read`,
 * `wiki_write`): the agent runtime's tool plug-in contract (`ToolPlugin`, agent-runtime
 * contracts.ts), implemented directly. Each is an OpenAI function schema plus `execute(args, ctx)`,
 * which calls this service's HTTP API through `ctx.callService` with the caller's stamped headers,
 * so visibility and turn events apply to the user exactly as through the gateway. Search results
 * come back numbered with citations (`[1]`, `[2]`, ...) the model is asked to use, and `citations`
 * for the UI.
 *
 * Importable by the runtime (this file imports only the runtime's contracts, nothing that opens stores).
 */
import { invalidArguments, serviceError, toolArgs, type Citation, type ServiceTool, type ToolPlugin } from '../../agent-runtime/src/contracts.js';

const TOPIC_PATTERN = '^[a-z0-9][a-z0-9._-]{0,127}$';

/** `knowledge_search`: hybrid search over the documents the user may read. */
export const knowledgeSearchTool: ServiceTool = {
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
    const a = toolArgs(args);
    if (typeof a.query !== 'string' || !a.query.trim()) return invalidArguments('query must be a non-empty string');
    const limit = typeof a.limit === 'number' && Number.isInteger(a.limit) ? Math.min(20, Math.max(1, a.limit)) : 5;
    const r = await ctx.callService('knowledge', 'POST', '/v1/knowledge/search', { query: a.query, limit });
    if (!r.ok) return serviceError(r);
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
export const wikiReadTool: ServiceTool = {
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
    const a = toolArgs(args);
    if (a.topic === undefined) {
      const r = await ctx.callService('knowledge', 'GET', '/v1/knowledge/wiki');
      if (!r.ok) return serviceError(r);
      const items = (r.body as { items: Array<{ topic: string; title: string; summary: string }> }).items;
      return { content: JSON.stringify({ pages: items.map((p) => ({ topic: p.topic, title: p.title, summary: p.summary })) }) };
    }
    if (typeof a.topic !== 'string' || !new RegExp(TOPIC_PATTERN).test(a.topic.toLowerCase())) return invalidArguments('topic must be a slug of letters, digits, . _ -');
    const r = await ctx.callService('knowledge', 'GET', `/v1/knowledge/wiki/${encodeURIComponent(a.topic.toLowerCase())}`);
    if (!r.ok) return r.status === 404 ? { content: JSON.stringify({ found: false, topic: a.topic }) } : serviceError(r);
    const p = r.body as { topic: string; title: string; summary: string; tags: string[]; content: string; updated_at: string };
    return { content: JSON.stringify({ found: true, topic: p.topic, title: p.title, summary: p.summary, tags: p.tags, updated_at: p.updated_at, content: p.content }) };
  },
};

/** `wiki_write`: create or update a page (private to the user unless they say otherwise). */
export const wikiWriteTool: ServiceTool = {
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
    const a = toolArgs(args);
    if (typeof a.topic !== 'string' || typeof a.title !== 'string' || typeof a.content !== 'string') return invalidArguments('topic, title and content are required strings');
    const body: Record<string, unknown> = { topic: a.topic, title: a.title, content: a.content };
    for (const k of ['summary', 'tags', 'visibility_mode', 'audience_tags', 'user_grants']) if (a[k] !== undefined) body[k] = a[k];
    const r = await ctx.callService('knowledge', 'POST', '/v1/knowledge/wiki', body);
    if (!r.ok) return serviceError(r);
    const p = r.body as { topic: string; title: string; visibility_mode: string; updated_at: string };
    return { content: JSON.stringify({ saved: true, created: r.status === 201, topic: p.topic, title: p.title, visibility_mode: p.visibility_mode, updated_at: p.updated_at }) };
  },
};

/** The knowledge tools, in registration order. */
export const knowledgeTools: readonly ServiceTool[] = [knowledgeSearchTool, wikiReadTool, wikiWriteTool];

/** The knowledge tools as the agent runtime's plug-in (`knowledge_search`, `wiki_read`, `wiki_write`). */
export const plugin: ToolPlugin = { name: 'knowledge', tools: knowledgeTools };
