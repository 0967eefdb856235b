/**
 * The state of one chat turn while it runs, and what every step of it shares (DESIGN.md "Chat
 * turn, end to end"): the engine's dependencies, the caller's identity, the prepared turn, the
 * processing trace, the turn events with their captured bodies, and how a turn ends.
 */
import type { TurnPayloadType } from '../../../../shared/events/turn-events.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import type { Awaitable } from '../../../../shared/db/async-store.js';
import {
  TOOL_RESULT_STREAM_LIMIT, type AgentRuntimeSettings, type ApprovalView, type ChatMessageInput, type ClientTool, type ProcessingTrace, type ReceiptRef,
  type ServiceCall, type StreamEventMap, type StreamEventName,
} from '../../contracts.js';
import type { ApprovalCenter } from '../approvals.js';
import type { ConversationBinding, ConversationPort } from '../conversations/binding.js';
import { artifactRef } from '../digest.js';
import { TurnJournal } from '../context/journal.js';
import type { AttachmentPort, AuditPort, ContextPort, DocumentFile, GuardPort, GuardScope, ModelPort, SessionRow, SessionStore, TurnEvents } from '../ports.js';
import type { ToolRegistry } from '../tool-registry.js';
import type { ResolvedAgent } from '../agents/catalog.js';
import type { SkillSource } from '../skills/load-tool.js';
import type { AgentTool } from '../../contracts.js';
import type { SourcedRule, ToolGate } from '../tool-policy.js';

/** Ids of the sessions and messages a turn writes (one monotonic factory, so they sort in creation order). */
export const nextId = ulidFactory();

/** Receives stream events in order. */
export type EventSink = <K extends StreamEventName>(name: K, data: StreamEventMap[K]) => void;

/** Who runs the turn, from the stamped headers. */
export interface TurnIdentity {
  tenantId: string;
  userId: string;
  /** X-Svc-Turn-Id, or null when the request carried none (no events, no receipt). */
  turnId: string | null;
  /** Stamped headers forwarded to peers (principal, turn id, cap token, correlation id). */
  headers: Record<string, string>;
  /** The principal's roles and groups (permission profiles, issue 13 item 8); absent = none. */
  roles?: string[];
  groups?: string[];
}

/** Everything the engine needs, injected. */
export interface ChatDeps {
  settings: AgentRuntimeSettings;
  sessions: SessionStore;
  model: ModelPort;
  guardrail: GuardPort;
  context: ContextPort;
  audit: Pick<AuditPort, 'putArtifact' | 'receipt'>;
  events: TurnEvents;
  tools: ToolRegistry;
  /** Policy rules in force for a tenant (config + admin). */
  policyRules(tenantId: string): Awaitable<SourcedRule[]>;
  /** The agents the caller's permission profiles allow (issue 13 item 8); absent or null = every agent. */
  agentGate?(tenantId: string, who: TurnIdentity): Awaitable<((agentId: string) => boolean) | null>;
  /** The tools the caller's permission profiles allow (issue 13 item 8); absent or null = every tool. */
  toolGate?(tenantId: string, who: TurnIdentity): Awaitable<ToolGate | null>;
  approvals: ApprovalCenter;
  /** Base URLs of every service, for tool contexts. */
  serviceUrls: Readonly<Record<string, string>>;
  /** Service calls as the turn's user (stamped `headers`, aborted with `signal`), for tool contexts. */
  serviceCall(headers: Record<string, string>, signal: AbortSignal): ServiceCall;
  log: { warn(obj: object, msg: string): void };
  /** Chat file parts (issue 12 item 7): documents from knowledge, copies into the sandbox; absent = file parts refused. */
  attachments?: AttachmentPort;
  /** Durable conversations (issue 13 item 4); absent = a request naming one is refused (`conversations_disabled`). */
  conversations?: ConversationPort;
  /** Stores each turn's context record when it ends (issue 13 item 5); absent = none kept. Never throws. */
  contextRecords?: { record(p: PreparedTurn, o: TurnOutcome): Awaitable<void> };
  /** The user's profile as a prompt part within its token budget (issue 13 item 2; domain/profile/service.ts); absent or null = none. */
  profile?: { contextPart(tenantId: string, userId: string): Awaitable<{ text: string; tokens: number } | null> };
  /** The agent catalog (issue 17 item 1; domain/agents/catalog.ts): the agent a turn runs, for its caller; absent = every agent id runs with the defaults. */
  agents?: { resolve(tenantId: string, userId: string, agentId: string): Awaitable<ResolvedAgent> };
  /** Skills (issue 17 item 2; domain/skills/): offered by name and description, loaded by `tool` (`load_skill`); absent = none. */
  skills?: SkillSource & { tool: AgentTool };
}

/** An attached document, fetched and given its workspace path (`data/<file name>`). */
export interface Attachment extends DocumentFile {
  path: string;
}

/** A validated turn, ready to run. */
export interface PreparedTurn {
  who: TurnIdentity;
  session: SessionRow;
  isNew: boolean;
  agentId: string;
  /** The agent's configuration (instructions, tools, model role, approval floor), when the runtime has a catalog (issue 17 item 1). */
  agent?: ResolvedAgent;
  input: ChatMessageInput[];
  /** Tools the client declared and runs itself (issue 17 item 5): a call to one ends the turn, handed back. */
  clientTools?: ClientTool[];
  /** Documents this turn's file parts name, fetched as the user (attach-files.ts), to copy into the workspace. */
  attachments?: Attachment[];
  /** The durable conversation the turn runs over (its items are the history; the turn is appended to it). */
  conversation?: ConversationBinding;
}

/** How the turn ended. */
export interface TurnOutcome {
  status: 'completed' | 'blocked' | 'failed';
  sessionId: string;
  agentId: string;
  content: string;
  userMessageId: string;
  assistantMessageId: string | null;
  trace: ProcessingTrace;
  receipt: ReceiptRef | null;
  approvals: ApprovalView[];
  error?: { code: string; message: string };
  /** What the turn put in front of the model and its timed steps (issue 13 item 5). */
  journal?: TurnJournal;
}

/** A turn while it runs. */
export interface Turn {
  readonly p: PreparedTurn;
  readonly sink: EventSink;
  readonly signal: AbortSignal;
  /** `performance.now()` at the start of the run. */
  readonly t0: number;
  readonly trace: ProcessingTrace;
  /** Uploads of captured bodies, awaited (bounded) before the turn's events are delivered. */
  readonly captures: Array<Promise<boolean>>;
  /** Approvals filed by this turn, with their latest state. */
  readonly approvals: ApprovalView[];
  /** Scope of the guardrail checks: `agent_id` is the agent's `guardrail_policy` when set, else the agent's id. */
  readonly scope: GuardScope;
  /** Id of the stored user message ('' until the input is persisted). */
  userMessageId: string;
  /** Prompt parts and timed steps for the context record (issue 13 item 5); the steps note into it when present. */
  readonly journal?: TurnJournal;
}

/** Round a duration to microseconds, ms. */
export const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/** The pending receipt of a turn before audit assigned it an id (spec "Receipt"). */
export function pendingReceipt(turnId: string): ReceiptRef {
  const base = `/v1/receipts/${encodeURIComponent(turnId)}`;
  return { turn_id: turnId, tier: 'attestable', status: 'pending', sealed: false, receipt_url: base, proof_url: `${base}/proof`, bundle_url: `${base}/bundle` };
}

/** Cut a tool result for the stream (spec "Limits": 2,000 characters). */
export function cutResult(text: string): string {
  return text.length <= TOOL_RESULT_STREAM_LIMIT ? text : text.slice(0, TOOL_RESULT_STREAM_LIMIT);
}

function newTrace(turnId: string | null, agentId: string): ProcessingTrace {
  return {
    turn_id: turnId, agent_id: agentId, model_role: 'default', model: null, steps: 0,
    guardrail: { input: 'skipped', output: 'skipped' },
    context: { memories: 'disabled', knowledge: 'disabled' },
    history: { messages_sent: 0, messages_trimmed: 0, estimated_tokens: 0 },
    tool_calls: [], usage: { prompt_tokens: 0, completion_tokens: 0 }, timings: { ttft_ms: null, total_ms: 0 },
  };
}

/** Start the state of a run. */
export function beginTurn(p: PreparedTurn, sink: EventSink, signal: AbortSignal): Turn {
  const t0 = performance.now();
  return {
    p, sink, signal, t0, trace: newTrace(p.who.turnId, p.agentId), captures: [], approvals: [],
    // Issue 17 item 1: an agent's `guardrail_policy` names the guardrail's agent-level policy override the checks apply.
    scope: { tenant_id: p.who.tenantId, agent_id: p.agent?.guardrailPolicy ?? p.agentId }, userMessageId: '', journal: new TurnJournal(),
  };
}

/**
 * Emit a turn event of the runtime (nothing without a turn id). With `artifact`, the payload
 * names the body's digest and the body is uploaded to audit as the event's artifact.
 * @returns the event id, or null.
 */
export function emitTurnEvent(
  d: Pick<ChatDeps, 'events' | 'audit'>, turn: Turn, type: TurnPayloadType, payload: Record<string, unknown>, artifact?: { kind: string; body: string },
): string | null {
  const { turnId, userId } = turn.p.who;
  if (!turnId) return null;
  if (artifact) payload = { ...payload, artifact: artifactRef(artifact.kind, artifact.body) };
  const id = d.events.emit(turnId, userId, type, payload);
  if (artifact) turn.captures.push(d.audit.putArtifact(turnId, id, artifact.kind, artifact.body));
  return id;
}

/** The outcome of a turn that ends now (its total time is taken here). */
export function endTurn(turn: Turn, status: TurnOutcome['status'], content: string, extra: Partial<TurnOutcome> = {}): TurnOutcome {
  turn.trace.timings.total_ms = round(performance.now() - turn.t0);
  return {
    status, sessionId: turn.p.session.id, agentId: turn.p.agentId, content, userMessageId: turn.userMessageId, assistantMessageId: null,
    trace: turn.trace, receipt: null, approvals: turn.approvals, ...(turn.journal ? { journal: turn.journal } : {}), ...extra,
  };
}

/** The outcome of a run whose client went away. */
export function clientClosed(turn: Turn): TurnOutcome {
  return endTurn(turn, 'failed', '', { error: { code: 'client_closed', message: 'the client went away' } });
}
