/**
 * What the notification use cases need from the outside (DESIGN.md "Inside a service"): the store
 * (store/notifications.ts implements it over SQLite; rows are plain values, so a PostgreSQL
 * implementation could stand behind the same shape). Issue 13 item 1.
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';

/** A stored notification (`payload` as JSON text). */
export interface NotificationRow {
  id: string;
  tenant_id: string;
  user_id: string;
  kind: string;
  title: string;
  body: string | null;
  payload: string | null;
  /** The producer's service name. */
  producer: string;
  idempotency_key: string | null;
  read_at: string | null;
  created_at: string;
}

/** What `NotificationStore.add` did. */
export interface AddOutcome {
  /** The stored row: the new one, or the original of a repeated idempotency key. */
  row: NotificationRow;
  /** False when the idempotency key was seen before (nothing was written). */
  fresh: boolean;
  /** Rows removed to keep the user within the cap. */
  evicted: number;
}

/** Notifications of (tenant, user). Every read and write is scoped by the caller's (tenant, user). */
export interface NotificationStore {
  /**
   * In one transaction: answer the row of (tenant, user, idempotency_key) when the key was seen;
   * else remove the user's oldest rows, read ones before unread ones, until fewer than `maxPerUser`
   * remain, and insert `row`.
   */
  add(row: NotificationRow, maxPerUser: number): Awaitable<AddOutcome>;
  /** Newest first; `beforeId` (exclusive) continues a page. */
  list(tenantId: string, userId: string, beforeId: string | null, limit: number): Awaitable<NotificationRow[]>;
  /** How many of the user's notifications are unread (a maintained counter: one row read). */
  unreadCount(tenantId: string, userId: string): Awaitable<number>;
  /** Mark one read (kept as it is when it was read already). @returns the row, or undefined when it is not the user's. */
  markRead(id: string, tenantId: string, userId: string, at: string): Awaitable<NotificationRow | undefined>;
  /** Mark every unread notification of the user read. @returns how many changed. */
  markAllRead(tenantId: string, userId: string, at: string): Awaitable<number>;
  /** Mark the user's unread notification of idempotency key `key` read (the matter it announced is settled). @returns how many changed (0 or 1). */
  markReadByKey(tenantId: string, userId: string, key: string, at: string): Awaitable<number>;
}
