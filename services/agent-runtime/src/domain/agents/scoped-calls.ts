/**
 * An agent's knowledge and memory limits applied to what its turn reaches (issue 17 item 1):
 * the filter its `knowledge` puts on knowledge retrieval, and the service calls its tools make
 * (`ToolContext.callService`) rewritten at the runtime's boundary, so no tool (nor the model's
 * arguments) can reach wider:
 * - `POST knowledge /v1/knowledge/search`: the agent's filter, when it names one, replaces any the
 *   tool sent (knowledge applies it within the user's own visibility, never wider; a search
 *   filter only ever narrows, so without an agent filter the body passes as it is);
 * - `POST memory /v1/memory` (store) and `POST memory /v1/memory/search` under memory scope
 *   `agent`: `scope.agent_id` is the agent's (stored and searched under the agent only);
 * - memory search and `GET memory /v1/memory/{id}` under scope `user`: another agent's own
 *   memories are left out (404 for a get), so an `agent`-scoped agent's memories stay its own;
 * - memory scope `none`: every memory call answers 403 `memory_disabled` (the memory tools are
 *   not offered either).
 * Pure over the `ServiceCall` it wraps.
 */
import type { ServiceAnswer, ServiceCall } from '../../contracts.js';
import type { KnowledgeFilter } from '../ports.js';
import type { ResolvedAgent } from './catalog.js';

/**
 * The knowledge filter of an agent: its `knowledge` lists (trimmed, empty ones left out), or null
 * when it names nothing (the user's whole visibility).
 */
export function knowledgeFilterOf(agent: Pick<ResolvedAgent, 'knowledge'> | undefined): KnowledgeFilter | null {
  const k = agent?.knowledge;
  if (!k) return null;
  const clean = (xs: string[] | undefined): string[] => [...new Set((xs ?? []).map((x) => x.trim()).filter(Boolean))];
  const f: KnowledgeFilter = {};
  const tags = clean(k.tags), audiences = clean(k.audiences), docs = clean(k.document_ids);
  if (tags.length) f.tags = tags;
  if (audiences.length) f.audiences = audiences;
  if (docs.length) f.document_ids = docs;
  return Object.keys(f).length ? f : null;
}

/** A memory record as memory answers it (the fields read here: `scope.agent_id`). */
interface MemoryLike { scope?: { agent_id?: string | null } | null }

/** The agent a memory record is kept under, or null (shared by the user's agents). */
const agentOf = (m: MemoryLike | null | undefined): string | null => (isObject(m) && isObject(m.scope) && typeof m.scope.agent_id === 'string' ? m.scope.agent_id : null);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a memory of `memoryAgent` is reachable from a turn of `agentId` under `scope`. */
function reachable(scope: ResolvedAgent['memoryScope'], agentId: string, memoryAgent: string | null | undefined): boolean {
  return scope === 'agent' ? memoryAgent === agentId : !memoryAgent || memoryAgent === agentId;
}

/**
 * `call` with the agent's limits (see the module comment). Without an agent (no catalog) `call`
 * itself.
 */
export function agentServiceCall(call: ServiceCall, agentId: string, agent: ResolvedAgent | undefined): ServiceCall {
  if (!agent) return call;
  const filter = knowledgeFilterOf(agent);
  const scope = agent.memoryScope;
  return async (service, method, path, body) => {
    const bare = path.split('?')[0]!;
    if (filter && service === 'knowledge' && method === 'POST' && bare === '/v1/knowledge/search' && isObject(body)) {
      return call(service, method, path, { ...body, filter });
    }
    if (service !== 'memory') return call(service, method, path, body);
    if (scope === 'none') return { ok: false, status: 403, body: { code: 'memory_disabled', message: 'this agent keeps no memory' } } satisfies ServiceAnswer;
    if (method === 'POST' && (bare === '/v1/memory' || bare === '/v1/memory/search') && isObject(body) && scope === 'agent') {
      const given = isObject(body.scope) ? body.scope : {};
      return narrowSearch(await call(service, method, path, { ...body, scope: { ...given, agent_id: agentId } }), scope, agentId, bare);
    }
    const answer = await call(service, method, path, body);
    if (method === 'POST' && bare === '/v1/memory/search') return narrowSearch(answer, scope, agentId, bare);
    if (method === 'GET' && /^\/v1\/memory\/[^/]+$/.test(bare) && answer.ok && isObject(answer.body)
      && !reachable(scope, agentId, agentOf(answer.body as MemoryLike))) {
      return { ok: false, status: 404, body: { code: 'memory_not_found', message: 'no such memory for this agent' } };
    }
    return answer;
  };
}

/** A search answer with the memories the agent may not reach left out. */
function narrowSearch(answer: ServiceAnswer, scope: ResolvedAgent['memoryScope'], agentId: string, bare: string): ServiceAnswer {
  if (bare !== '/v1/memory/search' || !answer.ok || !isObject(answer.body) || !Array.isArray(answer.body.memories)) return answer;
  const memories = (answer.body.memories as MemoryLike[]).filter((m) => reachable(scope, agentId, agentOf(m)));
  return { ...answer, body: { ...answer.body, memories } };
}
