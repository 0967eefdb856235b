/**
 * The tool plug-in contract (issue 5 item 3; issue 10 "one tool plug-in contract"): what a tool is,
 * what it sees of the turn that calls it, and what it answers. The runtime's built-in tools, the
 * knowledge and memory tools (`services/<svc>/src/tools.ts`) and the coming sandbox and MCP tools
 * implement these types directly; the runtime registers them as they are.
 *
 * A service that offers tools exports `plugin: ToolPlugin` from `services/<svc>/src/tools.ts`; the
 * runtime imports it while the service answers `/readyz` and withdraws its tools when it stops.
 *
 * Node-free: types and pure helpers only (the renderer may import this file).
 */
import type { ToolPolicy } from './settings.js';

/** An OpenAI function-tool schema: name, description and JSON-schema `parameters`, as sent to the model. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A service's answer to `ToolContext.callService`: status and parsed JSON body (text when not JSON). */
export interface ServiceAnswer {
  /** Status 2xx. */
  ok: boolean;
  status: number;
  body: unknown;
}

/**
 * Call a route of another service as the user of the turn: the turn's stamped identity headers
 * (`x-svc-principal`, `x-svc-turn-id`, `x-svc-cap-token`, `x-correlation-id`) are forwarded, the
 * call is bounded (15 s) and follows the turn's abort signal.
 * @throws Error when `service` has no URL, or on connection failure, timeout or abort.
 */
export type ServiceCall = (service: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => Promise<ServiceAnswer>;

/** What a tool sees of the turn that calls it. */
export interface ToolContext {
  tenantId: string;
  userId: string;
  agentId: string;
  sessionId: string;
  turnId: string | null;
  callId: string;
  /** Gateway-stamped headers of the turn (x-svc-principal, x-svc-turn-id, x-svc-cap-token), to call peers as the user. */
  headers: Record<string, string>;
  /** Base URLs of every service, by service name. */
  serviceUrls: Readonly<Record<string, string>>;
  /** Aborts when the turn ends early (the client went away). */
  signal: AbortSignal;
  /** Call a service with the turn's identity (see `ServiceCall`). */
  callService: ServiceCall;
}

/** A passage a tool cites; the UI shows citations under the answer. */
export interface Citation {
  /** 1-based number the model cites as `[n]`. */
  index: number;
  document_id: string;
  document_title: string;
  chunk_index: number;
  score: number;
}

/** Most files one tool call may hand back (`ToolOutput.files`; issue 12 item 6). */
export const MAX_TOOL_FILES = 20;
/** Largest file a tool call may hand back, bytes (10 MiB). */
export const MAX_TOOL_FILE_BYTES = 10 * 1024 * 1024;
/** Largest sum of the files of one tool call, bytes (40 MiB). */
export const MAX_TOOL_FILES_TOTAL_BYTES = 40 * 1024 * 1024;

/**
 * A file a tool call produced (a sandbox run's figure or output file), bytes included. The runtime
 * stores it through audit (`POST /v1/audit/artifacts`, kind `sandbox-<n>-<safe name>`), commits
 * `{name, mime, bytes, sha256, kind}` in the call's `tool_returned` event and announces it in the
 * call's one `artifact` event (`ToolFileRef`, with the audit `url`). The runtime recomputes `bytes`
 * and `sha256` from `content_base64`.
 */
export interface ToolFile {
  /** Workspace-relative name, e.g. `output/figure-20261123-101500-1.png`. */
  name: string;
  mime: string;
  bytes: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
  content_base64: string;
}

/**
 * A stored file as the `artifact` stream event announces it (issue 12 pins
 * `{call_id, artifacts: [{name, mime, bytes, sha256, url}]}`): `url` is the audit route of its bytes,
 * `/v1/audit/turns/{turn_id}/artifacts/{event_id}/{kind}` (the `tool_returned` event's id), or null
 * when it could not be stored (no turn id, audit refused or unreachable).
 */
export interface ToolFileRef {
  name: string;
  mime: string;
  bytes: number;
  sha256: string;
  url: string | null;
}

/**
 * A tool's answer in full. `content` goes back to the model. `isError` marks a failed call: the
 * model sees `error: <content>` and the call counts as failed. `files` (a sandbox run's figures and
 * output files) are stored through audit and announced by ONE `{call_id, artifacts: ToolFileRef[]}`
 * `artifact` event; other `artifacts` are announced as one `artifact` event each, then `citations`
 * as one `{type: "citations", tool, citations}` artifact.
 */
export interface ToolOutput {
  content: string;
  isError?: boolean;
  citations?: Citation[];
  artifacts?: Array<Record<string, unknown>>;
  /** Files the call produced (at most `MAX_TOOL_FILES`, each at most `MAX_TOOL_FILE_BYTES`; more are dropped). */
  files?: ToolFile[];
  /**
   * Fields the runtime adds to the call's `tool_returned` turn event, so the sealed receipt commits
   * to them (issue 17 item 2: `load_skill` commits `skill_loaded {skill_id, name, version, sha256}`).
   */
  commit?: Record<string, unknown>;
}

/** A tool's answer: plain text, or a `ToolOutput`. */
export type ToolResult = string | ToolOutput;

/**
 * One tool. `execute` receives the model's arguments as a JSON object; it may throw, and the
 * message goes back to the model as the tool's result (`error: <message>`).
 */
export interface AgentTool {
  definition: ToolDefinition;
  /** Policy when no rule names the tool (default `auto`). */
  policy?: ToolPolicy;
  /** The MCP server that offers the tool (issue 17 item 3): shown with the arguments in its approval. */
  mcp?: { server_id: string; server_name: string; tool: string };
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> | ToolResult;
}

/**
 * A tool that calls its own service's HTTP API as the user (knowledge, memory, sandbox). It also
 * accepts the arguments as JSON text, and always answers a `ToolOutput`.
 */
export interface ServiceTool extends AgentTool {
  /** `definition.function.name`. */
  name: string;
  execute(args: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

/** A set of tools that plug in together and go together. */
export interface ToolPlugin {
  /** Source name: the service that backs the tools (`knowledge`, `memory`, `sandbox`) or an MCP server id. */
  name: string;
  tools: readonly AgentTool[];
}

/** The model's arguments as an object: parsed when JSON text, `{}` when neither. */
export function toolArgs(args: unknown): Record<string, unknown> {
  if (typeof args === 'string') { try { return JSON.parse(args) as Record<string, unknown>; } catch { return {}; } }
  return args && typeof args === 'object' ? args as Record<string, unknown> : {};
}

/** A failed call the model can read: `{error, code}` as the content. */
export function toolError(error: string, code: string): ToolOutput {
  return { isError: true, content: JSON.stringify({ error, code }) };
}

/** A call whose arguments the tool rejects (code `invalid_arguments`). */
export function invalidArguments(message: string): ToolOutput {
  return toolError(message, 'invalid_arguments');
}

/** The tool error of a service answer that was not 2xx (its `{error, code}`, else `tool_call_failed`). */
export function serviceError(r: { status: number; body: unknown }): ToolOutput {
  const b = r.body as { error?: string; code?: string } | null;
  return toolError(b?.error ?? `request failed with status ${r.status}`, b?.code ?? 'tool_call_failed');
}
