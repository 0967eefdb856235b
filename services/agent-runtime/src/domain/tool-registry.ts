/**
 * The tool registry (issue 5 item 3): built-in tools and tools that plug in from other services
 * (memory, knowledge, sandbox, MCP) as `AgentTool`s of a `ToolPlugin` (contracts.ts). A source registers under a name
 * (`builtin`, `knowledge`, `memory`, ...) and can be replaced or withdrawn as a whole, so tools come
 * and go with the service that backs them.
 */
import type { AgentTool, ToolDefinition, ToolPlugin } from '../contracts.js';

/** Tool names the model may call: OpenAI's function-name rule. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** A registered tool with the source that brought it. */
export interface RegisteredTool extends AgentTool { source: string }

/** Registry of tools by name. */
export class ToolRegistry {
  private readonly bySource = new Map<string, RegisteredTool[]>();
  private byName = new Map<string, RegisteredTool>();

  /**
   * Register (or replace) every tool of `source`. A name already taken by another source is skipped.
   * @returns the names registered.
   * @throws Error when a tool's name is not a valid function name.
   */
  register(source: string, tools: readonly AgentTool[]): string[] {
    for (const t of tools) {
      if (!TOOL_NAME_RE.test(t.definition?.function?.name ?? '')) throw new Error(`tool from ${source} has an invalid name`);
    }
    this.bySource.set(source, tools.map((t) => ({ ...t, source })));
    this.rebuild();
    return tools.map((t) => t.definition.function.name).filter((n) => this.byName.get(n)?.source === source);
  }

  /** Register (or replace) every tool of a plug-in, under its name. @returns the names registered. */
  registerPlugin(plugin: ToolPlugin): string[] {
    return this.register(plugin.name, plugin.tools);
  }

  /** Withdraw every tool of `source`. */
  unregister(source: string): void {
    if (this.bySource.delete(source)) this.rebuild();
  }

  /** Whether `source` has tools registered. */
  has(source: string): boolean {
    return this.bySource.has(source);
  }

  private rebuild(): void {
    const next = new Map<string, RegisteredTool>();
    for (const tools of this.bySource.values()) for (const t of tools) if (!next.has(t.definition.function.name)) next.set(t.definition.function.name, t);
    this.byName = next;
  }

  /** A tool by name. */
  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** Every registered tool, by name. */
  list(): RegisteredTool[] {
    return [...this.byName.values()].sort((a, b) => a.definition.function.name.localeCompare(b.definition.function.name));
  }

  /** Definitions of the given tools, as sent to the model. */
  definitions(tools: readonly RegisteredTool[]): ToolDefinition[] {
    return tools.map((t) => t.definition);
  }
}
