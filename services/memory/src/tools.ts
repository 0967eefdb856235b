/**
 * Agent memory tools (spec "Memory": `memory_store`, `memory_recall`, `memory_get`): the agent
 * runtime's tool plug-in contract (`ToolPlugin`, agent-runtime contracts.ts), implemented directly.
 * OpenAI function schemas plus `execute(args, ctx)` calling this service's HTTP API through
 * `ctx.callService` with the caller's stamped headers, so the user's own scope applies. The scope's
 * agent comes from `ctx` (the runtime knows it), not from the model.
 */
import { invalidArguments, serviceError, toolArgs, type ServiceTool, type ToolContext, type ToolPlugin } from '../../agent-runtime/src/contracts.js';

const TYPES = ['user', 'feedback', 'project', 'reference'];

function scopeOf(ctx: Pick<ToolContext, 'agentId'>, agentScoped: boolean): Record<string, string> {
  const s: Record<string, string> = {};
  if (agentScoped && ctx.agentId) s.agent_id = ctx.agentId;
  return s;
}

/** `memory_store`: remember one durable fact, preference, instruction or pointer. */
export const memoryStoreTool: ServiceTool = {
  name: 'memory_store',
  definition: {
    type: 'function',
    function: {
      name: 'memory_store',
      description: 'Remember one durable thing about the user for future conversations: a fact or preference (user), how they want you to behave (feedback), ongoing work (project), or where something lives (reference). One self-contained sentence. Do not store secrets.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['content', 'memory_type'],
        properties: {
          content: { type: 'string', maxLength: 2000 },
          memory_type: { type: 'string', enum: TYPES },
          why_stored: { type: 'string', maxLength: 500, description: 'Why this is worth remembering.' },
          agent_only: { type: 'boolean', description: 'Only for this agent (default false: for every agent of the user).' },
        },
      },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.content !== 'string' || !a.content.trim()) return invalidArguments('content must be a non-empty string');
    if (!TYPES.includes(String(a.memory_type))) return invalidArguments('memory_type must be user, feedback, project or reference');
    const r = await ctx.callService('memory', 'POST', '/v1/memory', {
      content: a.content, memory_type: a.memory_type, scope: scopeOf(ctx, a.agent_only === true), source: 'agent_tool',
      ...(typeof a.why_stored === 'string' ? { why_stored: a.why_stored } : {}),
    });
    if (!r.ok) return serviceError(r);
    const res = (r.body as { results: Array<{ event: string; memory: { id: string; content: string } }> }).results[0]!;
    return { content: JSON.stringify({ stored: res.event !== 'NONE', event: res.event, memory_id: res.memory.id, content: res.memory.content }) };
  },
};

/** `memory_recall`: search the user's memories. */
export const memoryRecallTool: ServiceTool = {
  name: 'memory_recall',
  definition: {
    type: 'function',
    function: {
      name: 'memory_recall',
      description: 'Search what you remember about the user. Returns memories with ids, types and relevance scores (0-1).',
      parameters: {
        type: 'object', additionalProperties: false, required: ['query'],
        properties: { query: { type: 'string' }, memory_type: { type: 'string', enum: TYPES }, limit: { type: 'integer', minimum: 1, maximum: 20 } },
      },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.query !== 'string' || !a.query.trim()) return invalidArguments('query must be a non-empty string');
    const r = await ctx.callService('memory', 'POST', '/v1/memory/search', {
      query: a.query, limit: typeof a.limit === 'number' ? Math.min(20, Math.max(1, Math.floor(a.limit))) : 5,
      ...(TYPES.includes(String(a.memory_type)) ? { memory_type: a.memory_type } : {}),
    });
    if (!r.ok) return serviceError(r);
    const ms = (r.body as { memories: Array<{ id: string; content: string; memory_type: string; score: number; updated_at: string }> }).memories;
    return { content: JSON.stringify({ memories: ms.map((m) => ({ memory_id: m.id, content: m.content, memory_type: m.memory_type, score: m.score, updated_at: m.updated_at })) }) };
  },
};

/** `memory_get`: one memory by id. */
export const memoryGetTool: ServiceTool = {
  name: 'memory_get',
  definition: {
    type: 'function',
    function: {
      name: 'memory_get',
      description: 'Fetch one memory by its id (from memory_recall), with why it was stored and when.',
      parameters: { type: 'object', additionalProperties: false, required: ['memory_id'], properties: { memory_id: { type: 'string' } } },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.memory_id !== 'string' || !/^[0-9A-Za-z]{1,64}$/.test(a.memory_id)) return invalidArguments('memory_id must be an id returned by memory_recall');
    const r = await ctx.callService('memory', 'GET', `/v1/memory/${a.memory_id}`);
    if (!r.ok) return r.status === 404 ? { content: JSON.stringify({ found: false, memory_id: a.memory_id }) } : serviceError(r);
    const m = r.body as { id: string; content: string; memory_type: string; pinned: boolean; why_stored: string | null; source: string | null; created_at: string; updated_at: string; last_recalled_at: string | null };
    return { content: JSON.stringify({ found: true, memory_id: m.id, content: m.content, memory_type: m.memory_type, pinned: m.pinned, why_stored: m.why_stored, source: m.source, created_at: m.created_at, updated_at: m.updated_at, last_recalled_at: m.last_recalled_at }) };
  },
};

/** The memory tools, in registration order. */
export const memoryTools: readonly ServiceTool[] = [memoryStoreTool, memoryRecallTool, memoryGetTool];

/** The memory tools as the agent runtime's plug-in (`memory_store`, `memory_recall`, `memory_get`). */
export const plugin: ToolPlugin = { name: 'memory', tools: memoryTools };
