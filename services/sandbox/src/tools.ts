/**
 * Agent tools of the code sandbox (issue 12 item 7: `execute_code`, `bash`, `read_file`,
 * `write_file`, `grep`, `glob`): the agent runtime's tool plug-in contract (`ToolPlugin`,
 * agent-runtime contracts.ts), implemented directly. The runtime registers them while the sandbox
 * answers `/readyz` 200, which it does only when the Docker engine answers and the image is built;
 * otherwise they are not offered and chat goes on without them.
 *
 * Each tool calls the sandbox through `SandboxClient` AS THE USER (the turn's stamped headers from
 * the tool context: the tenant is the principal's) in the sandbox session named by the chat's
 * session id, so a follow-up question reuses the variables, imports and files of earlier calls.
 *
 * `execute_code` and `bash` fetch every file the run produced (`RunResult.artifacts`: files in
 * `output/` and the matplotlib figures the runner captured) through `/read_binary` and hand them
 * back as `ToolOutput.files`; the runtime stores them through audit, commits them in the call's
 * `tool_returned` event and announces them by one `artifact` event (issue 12 item 6). At most
 * `MAX_TOOL_FILES` files of at most `MAX_TOOL_FILE_BYTES` each (and `MAX_TOOL_FILES_TOTAL_BYTES`
 * together) are returned; the tool result tells the model which were left out and why.
 *
 * Default policy `auto` for all six (overridable per tenant and agent through AGENT_RUNTIME_TOOL_POLICY
 * and the admin policy routes): the code runs in the user's own hardened container (no network by
 * default, all capabilities dropped, read-only root, only the session's workspace writable, gVisor
 * where installed), so the container is the containment, as in the code interpreters this follows;
 * a deployment that turns the sandbox network on may want `ask` for `execute_code` and `bash`.
 *
 * Importable by the runtime: imports only this service's `client.ts` / `contracts.ts` and the
 * runtime's contracts, nothing that opens stores or the Docker engine.
 */
import {
  MAX_TOOL_FILE_BYTES, MAX_TOOL_FILES, MAX_TOOL_FILES_TOTAL_BYTES, invalidArguments, toolArgs, toolError,
  type ServiceTool, type ToolContext, type ToolFile, type ToolOutput, type ToolPlugin,
} from '../../agent-runtime/src/contracts.js';
import { SandboxClient, SandboxError, type SandboxCallOptions } from './client.js';
import type { RunResult, SessionRef } from './contracts.js';

/** Characters of stdout and of stderr a run hands the model (the rest is cut with a note). */
export const MODEL_OUTPUT_CHARS = 20_000;
/** Characters of a file's text `read_file` hands the model. */
export const MODEL_READ_CHARS = 100_000;
/** Grep matches handed to the model. */
export const MODEL_GREP_MATCHES = 200;
/** Longest run timeout a tool call may ask for, seconds (the service caps it again). */
const MAX_TOOL_TIMEOUT = 300;

/** The sandbox session of a turn: the user's tenant and the chat's session id. */
export function sessionOf(ctx: Pick<ToolContext, 'tenantId' | 'sessionId'>): SessionRef {
  return { tenant_id: ctx.tenantId, session_id: ctx.sessionId };
}

function clientOf(ctx: ToolContext): SandboxClient {
  const url = ctx.serviceUrls.sandbox;
  if (!url) throw new SandboxError('the sandbox service is not configured', 0, 'sandbox_unreachable');
  return new SandboxClient(url);
}

function callOpts(ctx: ToolContext): SandboxCallOptions {
  return { headers: ctx.headers, signal: ctx.signal };
}

/** A failed sandbox call as the model reads it (`{error, code}`). */
function failed(err: unknown): ToolOutput {
  if (err instanceof SandboxError) return toolError(err.message, err.code);
  return toolError((err as Error)?.message ?? String(err), 'tool_call_failed');
}

/** Cut `text` to `max` characters with a note saying how much was left out. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[cut: ${text.length - max} more characters; write long output to a file in output/ or print less]`;
}

/** A run's timeout argument: whole seconds in 1..300, else undefined (the service default, 30 s). */
function timeoutArg(v: unknown): number | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_TOOL_TIMEOUT) return null;
  return v;
}

/**
 * Fetch the files a run produced (`/read_binary`, as the user), within the caps.
 * @returns the files and one note per file left out. Never throws.
 */
export async function fetchRunFiles(client: SandboxClient, ref: SessionRef, run: RunResult, opts: SandboxCallOptions): Promise<{ files: ToolFile[]; notes: string[] }> {
  const files: ToolFile[] = [];
  const notes: string[] = [];
  let total = 0;
  for (const a of run.artifacts) {
    if (files.length >= MAX_TOOL_FILES) { notes.push(`${a.name} was not returned: at most ${MAX_TOOL_FILES} files per call`); continue; }
    if (a.bytes > MAX_TOOL_FILE_BYTES) { notes.push(`${a.name} (${a.bytes} bytes) was not returned: files over ${MAX_TOOL_FILE_BYTES} bytes stay in the workspace only`); continue; }
    if (total + a.bytes > MAX_TOOL_FILES_TOTAL_BYTES) { notes.push(`${a.name} was not returned: the files of one call may total at most ${MAX_TOOL_FILES_TOTAL_BYTES} bytes`); continue; }
    try {
      const b = await client.readBinary({ ...ref, path: a.name }, opts);
      if (b.bytes > MAX_TOOL_FILE_BYTES || total + b.bytes > MAX_TOOL_FILES_TOTAL_BYTES) { notes.push(`${a.name} was not returned: it grew past the size limit`); continue; }
      total += b.bytes;
      files.push({ name: a.name, mime: b.mime || a.mime, bytes: b.bytes, sha256: b.sha256, content_base64: b.content_base64 });
    } catch (err) {
      notes.push(`${a.name} could not be read back (${(err as Error).message})`);
    }
  }
  return { files, notes };
}

/** Run `execute` or `bash` and shape the result for the model, with the produced files. */
async function runAndCollect(ctx: ToolContext, run: (c: SandboxClient, ref: SessionRef, o: SandboxCallOptions) => Promise<RunResult>): Promise<ToolOutput> {
  try {
    const client = clientOf(ctx);
    const ref = sessionOf(ctx);
    const opts = callOpts(ctx);
    const r = await run(client, ref, opts);
    const { files, notes } = await fetchRunFiles(client, ref, r, opts);
    if (r.restarted) notes.unshift('The sandbox session was restarted (a call did not stop at its timeout): variables and imports of earlier calls are gone; run the setup code again.');
    if (r.timed_out) notes.unshift('The call was stopped at its timeout.');
    if (files.length) notes.push('The files above are shown to the user with your answer (figures inline); refer to them, do not paste their contents.');
    return {
      content: JSON.stringify({
        stdout: cut(r.stdout, MODEL_OUTPUT_CHARS), stderr: cut(r.stderr, MODEL_OUTPUT_CHARS), exit_code: r.exit_code,
        error: r.error ? { name: r.error.name, message: r.error.message, traceback: cut(r.error.traceback, MODEL_OUTPUT_CHARS) } : null,
        timed_out: r.timed_out, duration_ms: r.duration_ms, restarted: r.restarted, runtime: r.runtime,
        files: r.artifacts.map((a) => ({ name: a.name, mime: a.mime, bytes: a.bytes })),
        ...(notes.length ? { notes } : {}),
      }),
      ...(files.length ? { files } : {}),
    };
  } catch (err) {
    return failed(err);
  }
}

/** `execute_code`: run Python in the chat's persistent sandbox session. */
export const executeCodeTool: ServiceTool = {
  name: 'execute_code',
  policy: 'auto',
  definition: {
    type: 'function',
    function: {
      name: 'execute_code',
      description: 'Run Python 3 code in this chat\'s private sandbox, like a notebook cell: variables, imports and files persist across calls in the same chat, so later calls can reuse earlier results. numpy, pandas and matplotlib are installed; there is no network access. The working directory is the workspace; files the user attached are in data/. Print what you need to see: the result has stdout, stderr and, on failure, the exception with its traceback. Save files for the user in output/; every matplotlib figure left open is captured as a PNG and shown to the user (no need for savefig or show). Use it for calculations, data analysis and charts instead of computing by hand.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['code'],
        properties: {
          code: { type: 'string', description: 'Python source to run.' },
          timeout: { type: 'integer', minimum: 1, maximum: MAX_TOOL_TIMEOUT, description: 'Seconds before the call is stopped (default 30).' },
        },
      },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.code !== 'string' || !a.code.trim()) return invalidArguments('code must be a non-empty string of Python');
    const timeout = timeoutArg(a.timeout);
    if (timeout === null) return invalidArguments(`timeout must be a whole number of seconds from 1 to ${MAX_TOOL_TIMEOUT}`);
    const code = a.code;
    return runAndCollect(ctx, (c, ref, o) => c.execute({ ...ref, code, language: 'python', ...(timeout ? { timeout } : {}) }, o));
  },
};

/** `bash`: run a shell command in the workspace. */
export const bashTool: ServiceTool = {
  name: 'bash',
  policy: 'auto',
  definition: {
    type: 'function',
    function: {
      name: 'bash',
      description: 'Run a bash command in this chat\'s sandbox workspace (the same session and files as execute_code; no network access). Use it for file housekeeping (ls, head, wc, unzip) and command-line tools. The result has stdout, stderr and the exit status. Files written to output/ are shown to the user.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['command'],
        properties: {
          command: { type: 'string', description: 'The command line, run with bash -c in the workspace.' },
          timeout: { type: 'integer', minimum: 1, maximum: MAX_TOOL_TIMEOUT, description: 'Seconds before the command is stopped (default 30).' },
        },
      },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.command !== 'string' || !a.command.trim()) return invalidArguments('command must be a non-empty string');
    const timeout = timeoutArg(a.timeout);
    if (timeout === null) return invalidArguments(`timeout must be a whole number of seconds from 1 to ${MAX_TOOL_TIMEOUT}`);
    const command = a.command;
    return runAndCollect(ctx, (c, ref, o) => c.bash({ ...ref, command, ...(timeout ? { timeout } : {}) }, o));
  },
};

/** `read_file`: text lines of a workspace file. */
export const readFileTool: ServiceTool = {
  name: 'read_file',
  policy: 'auto',
  definition: {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a text file of the sandbox workspace, a page of lines at a time. Paths are relative to the workspace (e.g. "data/sales.csv", "output/report.md"). Use offset and limit to page through long files; the result says the total number of lines and whether more follow.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['path'],
        properties: {
          path: { type: 'string', description: 'Workspace-relative path.' },
          offset: { type: 'integer', minimum: 0, description: 'First line to return, 0-based (default 0).' },
          limit: { type: 'integer', minimum: 1, maximum: 10000, description: 'Lines to return (default 2000).' },
        },
      },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.path !== 'string' || !a.path) return invalidArguments('path must be a workspace-relative path');
    if (a.offset !== undefined && (typeof a.offset !== 'number' || !Number.isInteger(a.offset) || a.offset < 0)) return invalidArguments('offset must be a whole number >= 0');
    if (a.limit !== undefined && (typeof a.limit !== 'number' || !Number.isInteger(a.limit) || a.limit < 1 || a.limit > 10000)) return invalidArguments('limit must be a whole number from 1 to 10000');
    try {
      const r = await clientOf(ctx).read({
        ...sessionOf(ctx), path: a.path, ...(a.offset !== undefined ? { offset: a.offset as number } : {}), ...(a.limit !== undefined ? { limit: a.limit as number } : {}),
      }, callOpts(ctx));
      return { content: JSON.stringify({ path: r.path, offset: r.offset, lines: r.lines, total_lines: r.total_lines, truncated: r.truncated, content: cut(r.content, MODEL_READ_CHARS) }) };
    } catch (err) {
      return failed(err);
    }
  },
};

/** `write_file`: write a text file into the workspace. */
export const writeFileTool: ServiceTool = {
  name: 'write_file',
  policy: 'auto',
  definition: {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Create or overwrite a text file in the sandbox workspace (folders are created). Paths are relative to the workspace; write to output/ to hand the file to the user. Python code can then read it.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['path', 'content'],
        properties: {
          path: { type: 'string', description: 'Workspace-relative path, e.g. "scripts/clean.py".' },
          content: { type: 'string', description: 'The whole text of the file (UTF-8).' },
        },
      },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.path !== 'string' || !a.path) return invalidArguments('path must be a workspace-relative path');
    if (typeof a.content !== 'string') return invalidArguments('content must be a string');
    try {
      const r = await clientOf(ctx).write({ ...sessionOf(ctx), path: a.path, content: a.content, encoding: 'utf8' }, callOpts(ctx));
      return { content: JSON.stringify({ written: true, path: r.path, bytes: r.bytes }) };
    } catch (err) {
      return failed(err);
    }
  },
};

/** `grep`: lines matching a regular expression. */
export const grepTool: ServiceTool = {
  name: 'grep',
  policy: 'auto',
  definition: {
    type: 'function',
    function: {
      name: 'grep',
      description: 'Search the text files of the sandbox workspace for a regular expression (Python syntax). Returns matching lines with their file and line number. Limit the search with path (a file or folder, relative to the workspace).',
      parameters: {
        type: 'object', additionalProperties: false, required: ['pattern'],
        properties: {
          pattern: { type: 'string', description: 'Regular expression, e.g. "def \\\\w+" or "revenue".' },
          path: { type: 'string', description: 'File or folder to search (default: the whole workspace).' },
        },
      },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.pattern !== 'string' || !a.pattern) return invalidArguments('pattern must be a non-empty regular expression');
    if (a.path !== undefined && (typeof a.path !== 'string' || !a.path)) return invalidArguments('path must be a workspace-relative path');
    try {
      const r = await clientOf(ctx).grep({ ...sessionOf(ctx), pattern: a.pattern, ...(typeof a.path === 'string' ? { path: a.path } : {}) }, callOpts(ctx));
      const matches = r.matches.slice(0, MODEL_GREP_MATCHES).map((m) => ({ path: m.path, line: m.line, text: cut(m.text, 500) }));
      return { content: JSON.stringify({ matches, truncated: r.truncated || r.matches.length > MODEL_GREP_MATCHES, total: r.matches.length }) };
    } catch (err) {
      return failed(err);
    }
  },
};

/** `glob`: workspace paths matching a pattern. */
export const globTool: ServiceTool = {
  name: 'glob',
  policy: 'auto',
  definition: {
    type: 'function',
    function: {
      name: 'glob',
      description: 'List sandbox workspace files whose paths match a glob pattern ("**" matches folders recursively), e.g. "data/*.csv" or "**/*.py". Use it to see what files exist.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['pattern'],
        properties: { pattern: { type: 'string', description: 'Glob pattern relative to the workspace.' } },
      },
    },
  },
  async execute(args, ctx) {
    const a = toolArgs(args);
    if (typeof a.pattern !== 'string' || !a.pattern) return invalidArguments('pattern must be a non-empty glob pattern');
    try {
      const r = await clientOf(ctx).glob({ ...sessionOf(ctx), pattern: a.pattern }, callOpts(ctx));
      return { content: JSON.stringify({ paths: r.paths, truncated: r.truncated }) };
    } catch (err) {
      return failed(err);
    }
  },
};

/** The sandbox tools, in registration order. */
export const sandboxTools: readonly ServiceTool[] = [executeCodeTool, bashTool, readFileTool, writeFileTool, grepTool, globTool];

/** The sandbox tools as the agent runtime's plug-in. */
export const plugin: ToolPlugin = { name: 'sandbox', tools: sandboxTools };
