/**
 * Ports of the webhooks domain (issue 18 item 2): the hook, delivery and replay tables, and what a
 * delivery's target needs (a notification inbox, an agent runner, the audit log).
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { WebhookTarget } from '../../contracts/webhooks.js';

/** A stored hook: the secret sealed (AES-256-GCM under the data key `key_id`). */
export interface WebhookRow {
  id: string;
  tenant_id: string;
  name: string;
  target: WebhookTarget;
  owner_id: string;
  owner_roles: string[];
  owner_groups: string[];
  key_id: string;
  secret_iv: Buffer;
  secret_tag: Buffer;
  secret_ct: Buffer;
  secret_set_at: string;
  created_at: string;
}

/** A stored delivery. */
export interface DeliveryRow {
  id: string;
  tenant_id: string;
  hook_id: string;
  received_at: string;
  outcome: 'accepted' | 'rejected';
  code: string | null;
  turn_id: string | null;
  notification_id: string | null;
}

/** The webhooks tables. */
export interface WebhookStore {
  get(tenantId: string, id: string): Awaitable<WebhookRow | undefined>;
  list(tenantId: string): Awaitable<WebhookRow[]>;
  put(row: WebhookRow): Awaitable<void>;
  /** Replace the sealed secret. @returns whether the hook exists. */
  setSecret(tenantId: string, id: string, s: Pick<WebhookRow, 'key_id' | 'secret_iv' | 'secret_tag' | 'secret_ct' | 'secret_set_at'>): Awaitable<boolean>;
  /** Delete a hook with its deliveries and replay entries. @returns whether it existed. */
  delete(tenantId: string, id: string): Awaitable<boolean>;
  /** Record a delivery, keeping the newest `keep` of its hook. */
  addDelivery(row: DeliveryRow, keep: number): Awaitable<void>;
  /** A hook's deliveries, newest first. */
  deliveries(tenantId: string, hookId: string, limit: number): Awaitable<DeliveryRow[]>;
  /**
   * Remember (hook, signature) until `expiresMs` unless already remembered and unexpired; prunes
   * expired entries. @returns false when it was seen (a replay).
   */
  remember(hookId: string, signature: string, nowMs: number, expiresMs: number): Awaitable<boolean>;
  /** Forget a remembered (hook, signature) (the delivery failed before it was accepted). */
  forget(hookId: string, signature: string): Awaitable<void>;
}

/** An agent run a delivery started. */
export interface StartedRun { turnId: string }

/** Runs an agent as a user with a text input, as a sealed turn of its own. */
export interface AgentRunner {
  /**
   * Check the run can start (the agent exists for the owner) and start it in the background.
   * @returns the turn id at once; the turn's events and seal follow as the run proceeds.
   * @throws DomainError `agent_not_found` and the chat's request errors.
   */
  start(run: { tenantId: string; userId: string; roles: string[]; groups: string[]; agentId: string; input: string; hookId: string; deliveryId: string }): Awaitable<StartedRun>;
}

/** Posts a notification to a user. @returns the notification id. */
export interface WebhookNotifier {
  notify(n: { tenantId: string; userId: string; hookId: string; hookName: string; deliveryId: string; payload: unknown; summary: string }): Awaitable<string>;
}

/** Appends the `webhook.delivery` audit row (never throws; no secret, no body). */
export interface WebhookAudit {
  delivery(row: { tenantId: string; userId: string | null; hookId: string; deliveryId: string; outcome: 'accepted' | 'rejected'; code: string | null; turnId: string | null; notificationId: string | null }): void;
}

/** The data key the secrets are sealed with (store/secret-key.ts via app.ts). */
export interface WebhookKeyring {
  primary: { id: string; key: Buffer };
  key(id: string): Buffer | null;
}
