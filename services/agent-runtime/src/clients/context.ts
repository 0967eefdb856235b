/**
 * Memory prefetch and knowledge retrieval before the model call (DESIGN.md "Chat turn, end to end"):
 * `POST {memory}/v1/memory/search {query, scope, limit}` -> `{memories: [...]}` and
 * `POST {knowledge}/v1/knowledge/search {tenant_id, query, limit}` -> `{results: [...]}` (spec
 * "Memory", "Knowledge"), called with the user's stamped headers. A service that is not reachable
 * or not built yet (404) is reported `unavailable` and the turn goes on without it.
 */
import type { ContextOutcome, ContextPort, KnowledgeFilter } from '../domain/ports.js';
import { callJson } from './http.js';

/** Lowest score of an agent-only memory search (memory's prefetch floor). */
const AGENT_ONLY_MIN_SCORE = 0.5;

/** Client of both context sources. */
export class ContextClient implements ContextPort {
  constructor(private readonly memoryUrl: string, private readonly knowledgeUrl: string, private readonly timeoutMs: number) {}

  /**
   * Memories relevant to `query` for the turn: the agent's own and the user's memories with no
   * agent or session (memory's `POST /v1/memory/prefetch`; `/v1/memory/search` matches the agent
   * exactly, so memories a user stored without an agent never reached a chat). With `opts.agentOnly`
   * (issue 17 item 1: memory scope `agent`) that exact search instead: the agent's memories only,
   * at a score of at least 0.5 (prefetch's floor). Never throws.
   */
  async memories(query: string, scope: { tenant_id: string; user_id: string; agent_id?: string }, headers: Record<string, string>, opts: { agentOnly?: boolean } = {}, limit = 5): Promise<ContextOutcome> {
    try {
      const r = opts.agentOnly && scope.agent_id
        ? await callJson(`${this.memoryUrl}/v1/memory/search`, { body: { query, scope, limit, min_score: AGENT_ONLY_MIN_SCORE }, headers, timeoutMs: this.timeoutMs })
        : await callJson(`${this.memoryUrl}/v1/memory/prefetch`, { body: { query, scope, limit }, headers, timeoutMs: this.timeoutMs });
      const list = (r.body as { memories?: Array<{ content?: unknown; id?: unknown; score?: unknown }> } | null)?.memories;
      if (r.status !== 200 || !Array.isArray(list)) return { available: false, why: `memory answered HTTP ${r.status}` };
      return { available: true, snippets: list.filter((m) => typeof m.content === 'string').map((m) => ({
        text: m.content as string, source: `memory:${String(m.id ?? '')}`, score: typeof m.score === 'number' ? m.score : null, ...(typeof m.id === 'string' ? { id: m.id } : {}),
      })) };
    } catch (err) {
      return { available: false, why: `memory unreachable: ${(err as Error).message}` };
    }
  }

  /** Knowledge chunks of the tenant relevant to `query`, narrowed by `filter` when given (knowledge's search `filter`). Never throws. */
  async knowledge(query: string, tenantId: string, headers: Record<string, string>, filter?: KnowledgeFilter | null, limit = 5): Promise<ContextOutcome> {
    try {
      const r = await callJson(`${this.knowledgeUrl}/v1/knowledge/search`, { body: { tenant_id: tenantId, query, limit, ...(filter ? { filter } : {}) }, headers, timeoutMs: this.timeoutMs });
      const list = (r.body as { results?: Array<{ content?: unknown; source?: unknown; document_title?: unknown; score?: unknown; document_id?: unknown; chunk_index?: unknown }> } | null)?.results;
      if (r.status !== 200 || !Array.isArray(list)) return { available: false, why: `knowledge answered HTTP ${r.status}` };
      return {
        available: true,
        snippets: list.filter((c) => typeof c.content === 'string').map((c) => ({
          text: c.content as string, source: String(c.document_title ?? c.source ?? 'knowledge'), score: typeof c.score === 'number' ? c.score : null,
          ...(typeof c.document_id === 'string' ? { document_id: c.document_id } : {}), ...(typeof c.chunk_index === 'number' ? { chunk_index: c.chunk_index } : {}),
        })),
      };
    } catch (err) {
      return { available: false, why: `knowledge unreachable: ${(err as Error).message}` };
    }
  }
}
