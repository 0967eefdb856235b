/**
 * The client of the in-container runner (native/sandbox/runner.py; issue 12 "Execution"): JSON lines
 * over the container's attached stdin and (demultiplexed) stdout. Requests carry an `id`; answers
 * are matched by it, so a late answer to a call that timed out is dropped, never given to the next
 * call. The runner's first line is `{"id":"ready","ok":true,...}`. Every call has its own deadline
 * (the service-side watchdog); when it passes the call fails with `RunnerTimeout`, and when the
 * stream ends (the container stopped, e.g. killed by its memory limit) every pending call fails
 * with `RunnerGone`.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';

/** Longest answer line accepted, bytes of text (the runner caps captured output at 1 MiB per stream). */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** One answer of the runner: `{id, ok, ...result}` or `{id, ok: false, code, message}`. */
export interface RunnerAnswer {
  id: string;
  ok: boolean;
  code?: string;
  message?: string;
  [field: string]: unknown;
}

/** A request: the operation and its fields (the client adds the `id`). */
export type RunnerRequest = { op: string } & Record<string, unknown>;

/** The runner did not answer within the call's deadline. */
export class RunnerTimeout extends Error {
  constructor(message: string) { super(message); this.name = 'RunnerTimeout'; }
}

/** The runner's stream ended or broke: the runner is gone and will not answer. */
export class RunnerGone extends Error {
  constructor(message: string) { super(message); this.name = 'RunnerGone'; }
}

interface Pending {
  resolve(a: RunnerAnswer): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** Talks to one runner over its attached streams. */
export class RunnerClient {
  private readonly decoder = new StringDecoder('utf8');
  private readonly pending = new Map<string, Pending>();
  /** Text of the line being received, in pieces. */
  private parts: string[] = [];
  private partsLength = 0;
  private seq = 0;
  private gone: RunnerGone | null = null;
  private readyAnswer: RunnerAnswer | null = null;
  private readyWaiter: Pending | null = null;

  /**
   * @param stdin the runner's stdin.
   * @param stdout the runner's protocol stream.
   * @param onStray called with lines that are not answers to a pending call (late or garbage).
   */
  constructor(private readonly stdin: Writable, stdout: Readable, private readonly onStray: (line: string) => void = () => undefined) {
    stdout.on('data', (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? chunk : this.decoder.write(chunk)));
    stdout.on('end', () => this.fail(new RunnerGone('the runner stream ended')));
    stdout.on('close', () => this.fail(new RunnerGone('the runner stream closed')));
    stdout.on('error', (err: Error) => this.fail(new RunnerGone(`the runner stream failed: ${err.message}`)));
    stdin.on('error', (err: Error) => this.fail(new RunnerGone(`the runner's stdin failed: ${err.message}`)));
  }

  /** False once the stream ended or broke. */
  get alive(): boolean { return this.gone === null; }

  /**
   * Wait for the runner's `ready` line.
   * @throws RunnerTimeout after `timeoutMs`; RunnerGone when the stream ends first.
   */
  ready(timeoutMs: number): Promise<RunnerAnswer> {
    if (this.readyAnswer) return Promise.resolve(this.readyAnswer);
    if (this.gone) return Promise.reject(this.gone);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.readyWaiter = null; reject(new RunnerTimeout(`the runner was not ready within ${timeoutMs} ms`)); }, timeoutMs);
      this.readyWaiter = { resolve, reject, timer };
    });
  }

  /**
   * Send `req` and wait for its answer.
   * @param timeoutMs the service-side deadline of the call.
   * @throws RunnerTimeout when no answer came in time; RunnerGone when the runner is gone.
   */
  call(req: RunnerRequest, timeoutMs: number): Promise<RunnerAnswer> {
    if (this.gone) return Promise.reject(this.gone);
    const id = `c${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RunnerTimeout(`the runner did not answer ${req.op} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.stdin.write(`${JSON.stringify({ ...req, id })}\n`);
      } catch (err) {
        this.fail(new RunnerGone(`cannot write to the runner: ${(err as Error).message}`));
      }
    });
  }

  /** Fail every pending call and stop accepting new ones (idempotent). */
  close(reason = 'the runner client was closed'): void {
    this.fail(new RunnerGone(reason));
  }

  private onData(text: string): void {
    if (this.gone) return;
    // Only the new text is searched for line ends, so a long answer arriving in many chunks costs
    // linear time.
    let start = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) >= 0) {
      this.parts.push(text.slice(start, nl));
      const line = this.parts.join('');
      this.parts = [];
      this.partsLength = 0;
      start = nl + 1;
      if (line.trim() !== '') this.onLine(line);
      if (this.gone) return;
    }
    if (start < text.length) {
      this.parts.push(text.slice(start));
      this.partsLength += text.length - start;
    }
    if (this.partsLength > MAX_LINE_CHARS) this.fail(new RunnerGone('the runner wrote a line longer than the protocol allows'));
  }

  private onLine(line: string): void {
    let msg: unknown;
    try { msg = JSON.parse(line); } catch { this.onStray(line); return; }
    if (typeof msg !== 'object' || msg === null || typeof (msg as { id?: unknown }).id !== 'string') { this.onStray(line); return; }
    const answer = msg as RunnerAnswer;
    if (answer.id === 'ready') {
      this.readyAnswer = answer;
      if (this.readyWaiter) {
        clearTimeout(this.readyWaiter.timer);
        this.readyWaiter.resolve(answer);
        this.readyWaiter = null;
      }
      return;
    }
    const p = this.pending.get(answer.id);
    if (!p) { this.onStray(line); return; }
    this.pending.delete(answer.id);
    clearTimeout(p.timer);
    p.resolve(answer);
  }

  private fail(err: RunnerGone): void {
    if (this.gone) return;
    this.gone = err;
    this.parts = [];
    for (const p of this.pending.values()) { clearTimeout(p.timer); p.reject(err); }
    this.pending.clear();
    if (this.readyWaiter) { clearTimeout(this.readyWaiter.timer); this.readyWaiter.reject(err); this.readyWaiter = null; }
  }
}
