/**
 * User profile contracts (spec "Agent runtime surfaces": `/v1/user/profile` and sub-paths: read,
 * update, draft, dismissal; "Identity headers": `X-User-Timezone` seeds the timezone on first
 * contact; issue 13 item 2). The profile is what the assistant should know about the user; the
 * accepted profile reaches the model's context within AGENT_RUNTIME_PROFILE_BUDGET_TOKENS.
 *
 * A draft is what the `profile_curation` model role proposed after a turn: a list of changes the
 * user accepts (merged into the profile) or dismisses (never proposed again).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Id, OrNull, StringEnum, Timestamp } from './atoms.js';

/** Longest display name, characters. */
export const PROFILE_DISPLAY_NAME_MAX = 100;
/** Longest preference, characters. */
export const PROFILE_PREFERENCE_MAX = 500;
/** Most preferences kept in a profile. */
export const PROFILE_PREFERENCES_MAX = 50;
/** Most changes in one draft. */
export const PROFILE_DRAFT_CHANGES_MAX = 20;

/** An IANA time zone name (validated with `Intl`; stored in its canonical spelling). */
export const TimezoneSchema = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Paris' });
/** A BCP 47 language tag (validated with `Intl.getCanonicalLocales`; stored canonical). */
export const LanguageSchema = Type.String({ minLength: 1, maxLength: 35, description: 'BCP 47 language tag, e.g. en-GB' });
/** One thing the assistant should know about the user, in the user's words. */
export const PreferenceSchema = Type.String({ minLength: 1, maxLength: PROFILE_PREFERENCE_MAX });

/** `GET /v1/user/profile` answer (a user without a profile gets nulls, no preferences, `updated_at` null). */
export const UserProfileSchema = Type.Object({
  display_name: OrNull(Type.String({ maxLength: PROFILE_DISPLAY_NAME_MAX })),
  timezone: OrNull(TimezoneSchema),
  language: OrNull(LanguageSchema),
  preferences: Type.Array(PreferenceSchema, { maxItems: PROFILE_PREFERENCES_MAX }),
  updated_at: OrNull(Timestamp),
});
/** A user's profile. */
export type UserProfile = Static<typeof UserProfileSchema>;

/**
 * `PUT /v1/user/profile` body: the fields to set; a field left out keeps its value, `null` clears it
 * (`preferences` replaces the whole list). Timezone and language are validated and canonicalised.
 */
export const UserProfileUpdateSchema = Type.Object({
  display_name: Type.Optional(OrNull(Type.String({ maxLength: PROFILE_DISPLAY_NAME_MAX }))),
  timezone: Type.Optional(OrNull(TimezoneSchema)),
  language: Type.Optional(OrNull(LanguageSchema)),
  preferences: Type.Optional(Type.Array(PreferenceSchema, { maxItems: PROFILE_PREFERENCES_MAX })),
}, { additionalProperties: false });
/** A profile update. */
export type UserProfileUpdate = Static<typeof UserProfileUpdateSchema>;

/** Profile fields a change may touch. */
export const PROFILE_FIELDS = ['display_name', 'timezone', 'language', 'preferences'] as const;
/** Change operations: `set` a scalar field, `add` or `remove` a preference. */
export const PROFILE_CHANGE_OPS = ['set', 'add', 'remove'] as const;

/**
 * One proposed change: `{field: display_name|timezone|language, op: set, value}` or
 * `{field: preferences, op: add|remove, value}`. Also the schema the `profile_curation` model's JSON
 * answer is validated against (`{changes: ProfileChange[]}`).
 */
export const ProfileChangeSchema = Type.Object({
  field: StringEnum(PROFILE_FIELDS),
  op: StringEnum(PROFILE_CHANGE_OPS),
  value: Type.String({ minLength: 1, maxLength: PROFILE_PREFERENCE_MAX }),
}, { additionalProperties: false });
/** One proposed change. */
export type ProfileChange = Static<typeof ProfileChangeSchema>;

/** The structured answer asked of the `profile_curation` role. */
export const ProfileProposalSchema = Type.Object({
  changes: Type.Array(ProfileChangeSchema, { maxItems: PROFILE_DRAFT_CHANGES_MAX }),
}, { additionalProperties: false });
/** The curation model's answer. */
export type ProfileProposal = Static<typeof ProfileProposalSchema>;

/** A pending draft: the changes the assistant proposes, from which turn. */
export const ProfileDraftSchema = Type.Object({
  id: Type.String(),
  changes: Type.Array(ProfileChangeSchema),
  session_id: OrNull(Type.String()),
  turn_id: OrNull(Type.String()),
  created_at: Timestamp,
});
/** A pending draft. */
export type ProfileDraft = Static<typeof ProfileDraftSchema>;

/** `GET /v1/user/profile/draft` answer: the pending draft, or null when there is none. */
export const ProfileDraftAnswerSchema = Type.Object({ draft: OrNull(ProfileDraftSchema) });
/** The pending draft answer. */
export type ProfileDraftAnswer = Static<typeof ProfileDraftAnswerSchema>;

/**
 * Body of `POST /v1/user/profile/draft/accept` and `/dismiss` (optional): `id` of the draft the user
 * saw; when a newer draft replaced it meanwhile the call is refused with 409 `profile_draft_changed`.
 */
export const ProfileDraftDecisionSchema = Type.Object({ id: Type.Optional(Id) }, { additionalProperties: false });
/** A decision on the pending draft. */
export type ProfileDraftDecision = Static<typeof ProfileDraftDecisionSchema>;

/** The request header that seeds the profile's timezone on first contact (spec "Identity headers"). */
export const USER_TIMEZONE_HEADER = 'x-user-timezone';

/** Default of AGENT_RUNTIME_PROFILE_BUDGET_TOKENS: estimated tokens of the profile in the prompt. */
export const PROFILE_BUDGET_TOKENS_DEFAULT = 256;
