/**
 * The user profile use cases (spec "Agent runtime surfaces": `/v1/user/profile` and sub-paths;
 * "Identity headers": X-User-Timezone; issue 13 item 2): read and update the profile, seed the
 * timezone on first contact, the pending draft the `profile_curation` role proposed (read, accept:
 * merged into the profile, dismiss: its suggestions are never proposed again), and the profile's
 * part of the model's context. Every operation is scoped to the caller's (tenant, user).
 */
import type { AsyncTransactor } from '../../../../shared/db/async-store.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import type { ProfileChange, ProfileDraft, UserProfile, UserProfileUpdate } from '../../contracts.js';
import { invalidField, runtimeError } from '../errors.js';
import type { Owner } from '../sessions.js';
import { applyChanges, canonicalLanguage, canonicalTimezone, changeHash, cleanChanges, mergeChanges } from './changes.js';
import { profileContextPart, type ContextPart } from './context-part.js';
import type { DraftRow, ProfileRow, UserProfileStore } from './ports.js';

/** Where a proposal came from. */
export interface ProposalSource {
  sessionId: string | null;
  turnId: string | null;
}

/** Dependencies of `ProfileService`. */
export interface ProfileServiceDeps {
  store: UserProfileStore;
  tx: AsyncTransactor;
  /** AGENT_RUNTIME_PROFILE_BUDGET_TOKENS: estimated tokens of the profile in the prompt (0 = not sent). */
  budgetTokens: number;
  now?: () => Date;
}

const nextId = ulidFactory();

const EMPTY: Omit<UserProfile, 'updated_at'> = { display_name: null, timezone: null, language: null, preferences: [] };

function view(row: ProfileRow | undefined): UserProfile {
  if (!row) return { ...EMPTY, preferences: [], updated_at: null };
  return { display_name: row.display_name, timezone: row.timezone, language: row.language, preferences: JSON.parse(row.preferences) as string[], updated_at: row.updated_at };
}

function draftView(row: DraftRow): ProfileDraft {
  return { id: row.id, changes: JSON.parse(row.changes) as ProfileChange[], session_id: row.session_id, turn_id: row.turn_id, created_at: row.created_at };
}

/** Profiles and their drafts. */
export class ProfileService {
  private readonly now: () => Date;

  constructor(private readonly d: ProfileServiceDeps) {
    this.now = d.now ?? (() => new Date());
  }

  /** The caller's profile (empty when none was stored). */
  async get(o: Owner): Promise<UserProfile> {
    return view(await this.d.store.get(o.tenantId, o.userId));
  }

  /**
   * Update the fields `u` names (a field left out keeps its value, null clears it).
   * @throws DomainError `invalid_request` naming `body.timezone` (not an IANA zone) or `body.language` (not BCP 47).
   */
  async put(o: Owner, u: UserProfileUpdate): Promise<UserProfile> {
    const timezone = u.timezone === undefined || u.timezone === null ? u.timezone : canonicalTimezone(u.timezone);
    if (timezone === null && typeof u.timezone === 'string') throw invalidField(`"${u.timezone.slice(0, 64)}" is not an IANA time zone`, 'body.timezone');
    const language = u.language === undefined || u.language === null ? u.language : canonicalLanguage(u.language);
    if (language === null && typeof u.language === 'string') throw invalidField(`"${u.language.slice(0, 35)}" is not a BCP 47 language tag`, 'body.language');
    const preferences = u.preferences?.map((x) => x.trim()).filter(Boolean);
    const at = this.now().toISOString();
    return this.d.tx(async () => {
      const row = (await this.d.store.get(o.tenantId, o.userId)) ?? this.blank(o, at);
      const next: ProfileRow = {
        ...row,
        ...(u.display_name !== undefined ? { display_name: u.display_name?.trim() || null } : {}),
        ...(timezone !== undefined ? { timezone, timezone_source: 'user' as const } : {}),
        ...(language !== undefined ? { language } : {}),
        ...(preferences !== undefined ? { preferences: JSON.stringify([...new Set(preferences)]) } : {}),
        updated_at: at,
      };
      await this.d.store.put(next);
      return view(next);
    });
  }

  /**
   * Seed the timezone from X-User-Timezone when it was never set (first contact). An invalid zone
   * is ignored. @returns whether it was set.
   */
  async seedTimezone(o: Owner, header: string): Promise<boolean> {
    const tz = canonicalTimezone(header);
    return tz !== null && await this.d.store.seedTimezone(o.tenantId, o.userId, tz, this.now().toISOString());
  }

  /** The pending draft, or null. */
  async draft(o: Owner): Promise<ProfileDraft | null> {
    const row = await this.d.store.draft(o.tenantId, o.userId);
    return row ? draftView(row) : null;
  }

  /**
   * Take a proposal of the curation model: the changes are cleaned (valid, changing the profile,
   * not dismissed before) and merged into the pending draft (a new draft id), or stored as one.
   * @returns the draft, or null when nothing is left to propose.
   */
  propose(o: Owner, changes: readonly ProfileChange[], source: ProposalSource): Promise<ProfileDraft | null> {
    return this.d.tx(async () => {
      const profile = await this.get(o);
      const hashes = changes.map(changeHash);
      const dismissed = await this.d.store.dismissed(o.tenantId, o.userId, hashes);
      const clean = cleanChanges(changes, profile, (h) => dismissed.has(h));
      if (clean.length === 0) return null;
      const pending = await this.draft(o);
      const merged = pending ? cleanChanges(mergeChanges(pending.changes, clean), profile, () => false) : clean;
      const row: DraftRow = {
        tenant_id: o.tenantId, user_id: o.userId, id: nextId(), changes: JSON.stringify(merged),
        session_id: source.sessionId, turn_id: source.turnId, created_at: this.now().toISOString(),
      };
      await this.d.store.putDraft(row);
      return draftView(row);
    });
  }

  /**
   * Accept the pending draft: its changes are merged into the profile and the draft is gone.
   * @param id the draft the user saw (optional).
   * @returns the profile afterwards.
   * @throws DomainError `profile_draft_not_found` (no pending draft), `profile_draft_changed` (`id` is not the pending draft).
   */
  accept(o: Owner, id?: string): Promise<UserProfile> {
    return this.d.tx(async () => {
      const draft = await this.pending(o, id);
      const at = this.now().toISOString();
      const row = (await this.d.store.get(o.tenantId, o.userId)) ?? this.blank(o, at);
      const next = applyChanges(view(row), draft.changes);
      const tzChanged = draft.changes.some((c) => c.field === 'timezone');
      const stored: ProfileRow = {
        ...row, display_name: next.display_name, timezone: next.timezone, language: next.language, preferences: JSON.stringify(next.preferences),
        timezone_source: tzChanged ? 'draft' : row.timezone_source, updated_at: at,
      };
      await this.d.store.put(stored);
      await this.d.store.deleteDraft(o.tenantId, o.userId);
      return view(stored);
    });
  }

  /**
   * Dismiss the pending draft: each of its suggestions (by normalised content hash) is never
   * proposed again.
   * @throws DomainError `profile_draft_not_found`, `profile_draft_changed` (as `accept`).
   */
  async dismiss(o: Owner, id?: string): Promise<void> {
    await this.d.tx(async () => {
      const draft = await this.pending(o, id);
      await this.d.store.dismiss(o.tenantId, o.userId, draft.changes.map(changeHash), this.now().toISOString());
      await this.d.store.deleteDraft(o.tenantId, o.userId);
    });
  }

  /**
   * The caller's profile as a part of the model's context, within AGENT_RUNTIME_PROFILE_BUDGET_TOKENS.
   * @returns null when the profile is empty or the budget is 0.
   */
  async contextPart(tenantId: string, userId: string): Promise<ContextPart | null> {
    const row = await this.d.store.get(tenantId, userId);
    return row ? profileContextPart(view(row), this.d.budgetTokens) : null;
  }

  private async pending(o: Owner, id: string | undefined): Promise<ProfileDraft> {
    const draft = await this.draft(o);
    if (!draft) throw runtimeError('profile_draft_not_found', 'there is no pending profile draft');
    if (id !== undefined && id !== draft.id) throw runtimeError('profile_draft_changed', 'the profile draft changed since it was shown; read it again', { extra: { draft_id: draft.id } });
    return draft;
  }

  private blank(o: Owner, at: string): ProfileRow {
    return {
      tenant_id: o.tenantId, user_id: o.userId, display_name: null, timezone: null, timezone_source: null, language: null,
      preferences: '[]', created_at: at, updated_at: null,
    };
  }
}
