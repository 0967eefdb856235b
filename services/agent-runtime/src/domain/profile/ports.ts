/**
 * What the profile use cases need from storage (issue 13 item 2), shaped so a PostgreSQL table set
 * could stand behind it: one profile row and at most one pending draft per (tenant, user), and the
 * hashes of dismissed suggestions.
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';

/** Who set the timezone: the X-User-Timezone header, the user (PUT), an accepted draft; null = never set. */
export type TimezoneSource = 'header' | 'user' | 'draft';

/** A stored profile. `preferences` is a JSON array of strings. */
export interface ProfileRow {
  tenant_id: string;
  user_id: string;
  display_name: string | null;
  timezone: string | null;
  timezone_source: TimezoneSource | null;
  language: string | null;
  preferences: string;
  created_at: string;
  /** Last change by the user or an accepted draft (a seeded timezone alone leaves it null). */
  updated_at: string | null;
}

/** A stored pending draft. `changes` is a JSON array of `ProfileChange`. */
export interface DraftRow {
  tenant_id: string;
  user_id: string;
  id: string;
  changes: string;
  session_id: string | null;
  turn_id: string | null;
  created_at: string;
}

/** Profiles, drafts and dismissals. */
export interface UserProfileStore {
  get(tenantId: string, userId: string): Awaitable<ProfileRow | undefined>;
  /** Insert or replace the whole row. */
  put(row: ProfileRow): Awaitable<void>;
  /**
   * Set the timezone from the header when it was never set (no row, or `timezone_source` null).
   * @returns whether it was set.
   */
  seedTimezone(tenantId: string, userId: string, timezone: string, now: string): Awaitable<boolean>;
  draft(tenantId: string, userId: string): Awaitable<DraftRow | undefined>;
  /** Insert or replace the user's pending draft. */
  putDraft(row: DraftRow): Awaitable<void>;
  /** Delete the user's pending draft. @returns whether one was deleted. */
  deleteDraft(tenantId: string, userId: string): Awaitable<boolean>;
  /** The hashes among `hashes` the user dismissed. */
  dismissed(tenantId: string, userId: string, hashes: readonly string[]): Awaitable<Set<string>>;
  /** Record dismissed suggestions (repeats are ignored). */
  dismiss(tenantId: string, userId: string, hashes: readonly string[], at: string): Awaitable<void>;
}
