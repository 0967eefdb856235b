/**
 * Profile curation after a turn (issue 13 item 2: "a draft the assistant proposes after a turn when
 * the `profile_curation` role is mapped"). When a turn completed and the inference router maps the
 * `profile_curation` role, that model is asked in the background (the answer was delivered already)
 * which profile changes the USER'S OWN message states: only the stored user message (after the input
 * guardrail) is sent, never the assistant's answer, tool results or retrieved documents, so text
 * from elsewhere cannot write itself into the profile. The answer must be JSON matching
 * `ProfileProposalSchema`; anything else is dropped. Cleaned changes become (or join) the pending
 * draft; nothing is applied until the user accepts. A role not mapped means no drafts.
 *
 * Failures are logged without the user's text and never reach the user.
 */
import { ProfileProposalSchema, type ProfileChange, type UserProfile } from '../../contracts.js';
import type { OpenAiMessage, SessionStore } from '../ports.js';
import type { ProfileService } from './service.js';

/** The model role asked for profile changes. */
export const PROFILE_CURATION_ROLE = 'profile_curation';

/** Longest user message sent to the curation model, characters (the start is kept). */
export const CURATION_INPUT_CHARS = 4000;

/** The `profile_curation` role through the inference router (clients/profile-curation.ts). */
export interface CurationModelPort {
  /** Whether the router maps the role (its model list names it as a role alias). Never throws: false when unknown. */
  roleMapped(headers: Record<string, string>, signal?: AbortSignal): Promise<boolean>;
  /**
   * Ask the role with a JSON-schema answer format. @returns the answer text.
   * @throws InferenceError when the call fails.
   */
  complete(messages: OpenAiMessage[], schema: object, headers: Record<string, string>, signal?: AbortSignal): Promise<string>;
}

/** The turn that ended, as the engine's listener sees it. */
export interface CuratedTurn {
  who: { tenantId: string; userId: string; turnId: string | null; headers: Record<string, string> };
}

/** How it ended. */
export interface CuratedOutcome {
  status: string;
  sessionId: string;
  userMessageId: string;
}

/** Dependencies of the curator. */
export interface ProfileCuratorDeps {
  profiles: ProfileService;
  sessions: Pick<SessionStore, 'messages'>;
  model: CurationModelPort;
  log: { warn(obj: object, msg: string): void; debug?(obj: object, msg: string): void };
  /** Bound of one curation (role check and model call), ms. */
  timeoutMs: number;
}

/** The instructions of the curation model. */
export const CURATION_INSTRUCTIONS = [
  "You keep a user's profile for their assistant. Read the user's message and propose profile changes ONLY for what the user explicitly states about themselves:",
  'their name (display_name), their time zone (timezone, an IANA name such as Europe/Paris), their language (language, a BCP 47 tag such as en-GB),',
  'or a lasting preference about how the assistant should work with them (preferences: add a short third-person sentence, or remove one the user takes back).',
  'Ignore one-off requests, facts about other people, guesses, and anything quoted from documents or other sources. Do not repeat what the profile already holds.',
  'Answer with JSON only, exactly {"changes":[{"field":"display_name|timezone|language|preferences","op":"set|add|remove","value":"..."}]};',
  'scalar fields use "set", preferences "add" or "remove". When there is nothing to change, answer {"changes":[]}.',
].join(' ');

/** The JSON schema sent as the answer format (the answer is validated against `ProfileProposalSchema`). */
export const CURATION_ANSWER_SCHEMA = {
  type: 'object', additionalProperties: false, required: ['changes'],
  properties: {
    changes: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['field', 'op', 'value'],
        properties: {
          field: { type: 'string', enum: ['display_name', 'timezone', 'language', 'preferences'] },
          op: { type: 'string', enum: ['set', 'add', 'remove'] },
          value: { type: 'string' },
        },
      },
    },
  },
} as const;

/** The messages of one curation request (pure). */
export function curationMessages(profile: UserProfile, userText: string): OpenAiMessage[] {
  const current = { display_name: profile.display_name, timezone: profile.timezone, language: profile.language, preferences: profile.preferences };
  return [
    { role: 'system', content: CURATION_INSTRUCTIONS },
    { role: 'user', content: `Current profile:\n${JSON.stringify(current)}\n\nThe user's message:\n<<<\n${userText.slice(0, CURATION_INPUT_CHARS)}\n>>>` },
  ];
}

type Checker = (value: unknown) => boolean;
let checker: Promise<Checker> | null = null;

/** `ProfileProposalSchema` as a checker (TypeBox's value module, loaded on first use: curation is background work). */
function proposalChecker(): Promise<Checker> {
  checker ??= import('typebox/value').then(({ Value }) => (v: unknown) => Value.Check(ProfileProposalSchema, v));
  return checker;
}

/**
 * The changes of a curation answer: the JSON object in `text` (code fences and prose around it
 * are tolerated) when it matches `ProfileProposalSchema`. @returns null when it does not.
 */
export async function parseProposal(text: string): Promise<ProfileChange[] | null> {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let parsed: unknown;
  try { parsed = JSON.parse(text.slice(start, end + 1)); } catch { return null; }
  return (await proposalChecker())(parsed) ? (parsed as { changes: ProfileChange[] }).changes : null;
}

/** Proposes profile drafts after turns, in the background. */
export class ProfileCurator {
  private readonly running = new Set<Promise<void>>();
  private readonly stop = new AbortController();

  constructor(private readonly d: ProfileCuratorDeps) {}

  /** After a turn: a completed one is curated in the background (never delays or fails the turn). */
  afterTurn(p: CuratedTurn, o: CuratedOutcome): void {
    if (o.status !== 'completed' || !o.userMessageId || this.stop.signal.aborted) return;
    const job = this.curate(p, o).catch((err: unknown) => {
      this.d.log.warn({ err: (err as Error).message, session_id: o.sessionId, turn_id: p.who.turnId }, 'profile curation failed');
    });
    this.running.add(job);
    void job.finally(() => this.running.delete(job));
  }

  /** Stop: abort running curations and wait (bounded) for them to end. */
  async close(waitMs = 2000): Promise<void> {
    this.stop.abort();
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.running]), new Promise((r) => { timer = setTimeout(r, waitMs); })]);
    clearTimeout(timer);
  }

  private async curate(p: CuratedTurn, o: CuratedOutcome): Promise<void> {
    const signal = AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.d.timeoutMs)]);
    const headers = p.who.headers;
    if (!(await this.d.model.roleMapped(headers, signal))) return;
    const rows = await this.d.sessions.messages(o.sessionId);
    const userText = rows.findLast((r) => r.id === o.userMessageId)?.content ?? '';
    if (!userText.trim()) return;
    const owner = { tenantId: p.who.tenantId, userId: p.who.userId };
    const answer = await this.d.model.complete(curationMessages(await this.d.profiles.get(owner), userText), CURATION_ANSWER_SCHEMA, headers, signal);
    const changes = await parseProposal(answer);
    if (changes === null) {
      this.d.log.warn({ session_id: o.sessionId, turn_id: p.who.turnId, answer_chars: answer.length }, 'profile curation answer is not a valid proposal; ignored');
      return;
    }
    if (changes.length === 0) return;
    const draft = await this.d.profiles.propose(owner, changes, { sessionId: o.sessionId, turnId: p.who.turnId });
    if (draft) this.d.log.debug?.({ draft_id: draft.id, changes: draft.changes.length }, 'profile draft proposed');
  }
}
