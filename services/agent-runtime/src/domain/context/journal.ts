/**
 * What a turn puts in front of the model, noted while it runs (issue 13 item 5): the named system
 * parts of the prompt, the memories and knowledge chunks the prefetch found (with scores), the
 * history kept or dropped by the context budget, and the timed steps (guard input, prefetch, model
 * calls, tool calls, guard output). The chat steps note into `turn.journal`; when the turn ends
 * `record.ts` turns it into the stored context record. In memory only, bounded; never throws.
 */
import { CONTEXT_STEPS_MAX } from '../../contracts.js';
import type { ContextOutcome, OpenAiMessage } from '../ports.js';

/** One named system part of the prompt (the builder names each; `context` is the prefetch's message). */
export interface NamedPart { name: string; message: OpenAiMessage }

/** A step noted while the turn ran. */
export interface JournalStep {
  step: string;
  /** Wall time of the start, ms since the epoch. */
  startedAt: number;
  durationMs: number;
  status: string;
  detail: Record<string, unknown>;
}

/** The prompt of the first model call, as the builder assembled it. */
export interface PromptNote {
  parts: NamedPart[];
  /** Every history message offered, oldest first. */
  history: OpenAiMessage[];
  /** History messages the budget dropped (the oldest `dropped`). */
  dropped: number;
  input: OpenAiMessage[];
  /** Estimated tokens of the whole prompt. */
  estimatedTokens: number;
  /** The budget the history was trimmed to. */
  budgetTokens: number;
}

/** What the prefetch gave: each source's outcome and the text it added to the context message. */
export interface PrefetchNote {
  memories: ContextOutcome;
  knowledge: ContextOutcome;
  /** The lines of the memory block and of the knowledge block, as put in the context message. */
  memoryText: string;
  knowledgeText: string;
}

/** Round to microseconds, ms. */
const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/** The journal of one turn. */
export class TurnJournal {
  readonly steps: JournalStep[] = [];
  /** Steps not kept once `CONTEXT_STEPS_MAX` were noted. */
  stepsOmitted = 0;
  prompt: PromptNote | null = null;
  prefetch: PrefetchNote | null = null;

  constructor(private readonly wall: () => number = Date.now, private readonly mono: () => number = () => performance.now()) {}

  /**
   * Start timing a step.
   * @returns a function that notes the step with its outcome (call it once).
   */
  begin(step: string): (status: string, detail?: Record<string, unknown>) => void {
    const startedAt = this.wall();
    const t0 = this.mono();
    return (status, detail = {}) => this.note({ step, startedAt, durationMs: round(this.mono() - t0), status, detail });
  }

  /** Note a step that ended now and took `durationMs`. */
  ended(step: string, durationMs: number, status: string, detail: Record<string, unknown> = {}): void {
    this.note({ step, startedAt: this.wall() - durationMs, durationMs: round(Math.max(0, durationMs)), status, detail });
  }

  /** Note what the prefetch found. */
  prefetched(note: PrefetchNote): void {
    this.prefetch = note;
  }

  /** Note the first prompt (later steps of the tool loop reuse and extend it). */
  prompted(note: PromptNote): void {
    this.prompt ??= note;
  }

  private note(s: JournalStep): void {
    if (this.steps.length >= CONTEXT_STEPS_MAX) { this.stepsOmitted++; return; }
    this.steps.push(s);
  }
}
