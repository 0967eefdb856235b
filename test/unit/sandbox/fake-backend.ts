/**
 * An in-memory `SandboxBackend` for the sandbox unit tests: each "container" is a tiny runner
 * emulation speaking the runner's JSON lines (ready line, `ping`, `execute` storing and printing
 * variables of a per-container namespace, `hang` never answering, `die` ending the stream).
 */
import { PassThrough } from 'node:stream';
import type { ContainerExit, ContainerHandle, ContainerSpec, LabelledContainer, RuntimeInfo, SandboxBackend } from '../../../services/sandbox/src/domain/ports.js';

/** One fake container. */
export interface FakeContainer { id: string; spec: ContainerSpec; removed: boolean; vars: Map<string, string>; stdout: PassThrough }

/** The fake backend; `containers` lists every container made. */
export class FakeBackend implements SandboxBackend {
  readonly name = 'docker';
  readonly containers: FakeContainer[] = [];
  up = true;
  image = true;
  registered: RuntimeInfo[] = [{ name: 'runc', args: [] }, { name: 'runsc', args: ['--network=none'] }];
  /** Delay of each answer, ms. */
  answerDelayMs = 0;

  async ping(): Promise<boolean> { return this.up; }
  async imagePresent(): Promise<boolean> { return this.image; }
  async runtimes(): Promise<RuntimeInfo[]> { return this.registered; }
  async create(spec: ContainerSpec): Promise<ContainerHandle> {
    const id = `c${this.containers.length + 1}`;
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const c: FakeContainer = { id, spec, removed: false, vars: new Map(), stdout };
    this.containers.push(c);
    let buf = '';
    stdin.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const req = JSON.parse(buf.slice(0, nl)) as { id: string; op: string; code?: string };
        buf = buf.slice(nl + 1);
        if (req.op === 'hang') continue;
        if (req.op === 'die') { stdout.end(); continue; }
        const answer = (): void => {
          if (stdout.writableEnded) return;
          if (req.op === 'execute') {
            const [k, v] = (req.code ?? '').split('=');
            if (v !== undefined) c.vars.set(k!, v);
            stdout.write(`${JSON.stringify({ id: req.id, ok: true, stdout: c.vars.get(k!) ?? '', stderr: '', exit_code: 0, error: null, timed_out: false, duration_ms: 1, artifacts: [] })}\n`);
          } else {
            stdout.write(`${JSON.stringify({ id: req.id, ok: true, container: id })}\n`);
          }
        };
        if (this.answerDelayMs) setTimeout(answer, this.answerDelayMs); else answer();
      }
    });
    setImmediate(() => { if (!stdout.writableEnded) stdout.write('{"id":"ready","ok":true}\n'); });
    return { id, runtime: spec.runtime, stdin, stdout, stderr: new PassThrough(), detach: () => undefined };
  }
  async remove(id: string): Promise<void> {
    const c = this.containers.find((x) => x.id === id);
    if (c) { c.removed = true; if (!c.stdout.writableEnded) c.stdout.end(); }
  }
  async exitOf(): Promise<ContainerExit | null> { return { exitCode: 137, oomKilled: true }; }
  async list(labels: Readonly<Record<string, string>>): Promise<LabelledContainer[]> {
    return this.containers.filter((c) => !c.removed && Object.entries(labels).every(([k, v]) => c.spec.labels[k] === v)).map((c) => ({ id: c.id, labels: c.spec.labels }));
  }
  async memoryUsage(): Promise<number | null> { return 1234; }
  close(): void { /* nothing held */ }
  /** Live (not removed) containers. */
  get live(): FakeContainer[] { return this.containers.filter((c) => !c.removed); }
}
