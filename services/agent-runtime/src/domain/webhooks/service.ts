/**
 * Webhooks (issue 18 item 2; spec "Agent runtime surfaces" `/v1/webhook`, `/v1/webhook/*`):
 * admin management (create answers the secret once, list/get never do, rotate, delete, recent
 * deliveries) and the delivery use case: find the hook, verify the signature and timestamp
 * (verify.ts), refuse a (hook, signature) seen within the window (the replay cache is a table, so it
 * holds across a restart), run the target (a notification to its user, or an agent run as the
 * hook's owner, runner.ts), then record and audit the delivery with its outcome. Every refused
 * delivery of a known hook is recorded and audited too (an unknown hook is audited only).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  WEBHOOK_DELIVERIES_KEPT, WEBHOOK_WINDOW_SECONDS,
  type WebhookAccepted, type WebhookCreate, type WebhookCreated, type WebhookDelivery, type WebhookRotated, type WebhookView,
} from '../../contracts/webhooks.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import { isDomainError } from '../../../../shared/kit/domain-error.js';
import { runtimeError } from '../errors.js';
import type { Awaitable } from '../../../../shared/db/async-store.js';
import { verifyWebhook } from './verify.js';
import type { AgentRunner, DeliveryRow, WebhookAudit, WebhookKeyring, WebhookNotifier, WebhookRow, WebhookStore } from './ports.js';

const newId = ulidFactory();

/** The admin managing hooks. */
export interface WebhookCaller { tenantId: string; userId: string; roles: string[]; groups: string[] }

/** Dependencies of the service. */
export interface WebhookServiceDeps {
  store: WebhookStore;
  /** Opens the data keyring (memoised by the caller). */
  keyring(): Promise<WebhookKeyring>;
  runner: AgentRunner;
  notifier: WebhookNotifier;
  audit: WebhookAudit;
  /** Whether `userId` may use agent `agentId` (create-time check); absent = not checked. */
  agentVisible?(tenantId: string, userId: string, agentId: string): Awaitable<boolean>;
  nowMs?: () => number;
}

/** A delivery as the route hands it over. */
export interface DeliveryInput { tenantId: string; hookId: string | null; timestamp: string | undefined; signature: string | undefined; rawBody: Buffer }

const aad = (tenantId: string, id: string): Buffer => Buffer.from(JSON.stringify([tenantId, 'webhook', id]), 'utf8');

function view(r: WebhookRow): WebhookView {
  return { id: r.id, name: r.name, target: r.target, owner_id: r.owner_id, created_at: r.created_at, secret_set_at: r.secret_set_at };
}

function deliveryView(r: DeliveryRow): WebhookDelivery {
  return {
    id: r.id, received_at: r.received_at, outcome: r.outcome,
    ...(r.code ? { code: r.code } : {}), ...(r.turn_id ? { turn_id: r.turn_id } : {}), ...(r.notification_id ? { notification_id: r.notification_id } : {}),
  };
}

/** A fresh secret: `whsec_` + 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Text of a payload for a notification body or an agent's input: the raw body as UTF-8. */
function payloadText(raw: Buffer): string {
  return raw.toString('utf8');
}

/** Hook management and delivery. */
export class WebhookService {
  private readonly now: () => number;
  /** Unsealed secrets by hook id, with the `secret_set_at` they belong to. */
  private readonly secrets = new Map<string, { at: string; secret: string }>();

  constructor(private readonly d: WebhookServiceDeps) {
    this.now = d.nowMs ?? Date.now;
  }

  private async sealed(tenantId: string, id: string, secret: string): Promise<Pick<WebhookRow, 'key_id' | 'secret_iv' | 'secret_tag' | 'secret_ct'>> {
    const ring = await this.keyring();
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', ring.primary.key, iv);
    c.setAAD(aad(tenantId, id));
    const ct = Buffer.concat([c.update(secret, 'utf8'), c.final()]);
    return { key_id: ring.primary.id, secret_iv: iv, secret_tag: c.getAuthTag(), secret_ct: ct };
  }

  private async keyring(): Promise<WebhookKeyring> {
    try { return await this.d.keyring(); } catch { throw runtimeError('secret_store_unavailable', 'the data key that seals webhook secrets cannot be opened'); }
  }

  private async secretOf(r: WebhookRow): Promise<string> {
    const hit = this.secrets.get(r.id);
    if (hit && hit.at === r.secret_set_at) return hit.secret;
    const key = (await this.keyring()).key(r.key_id);
    if (!key) throw runtimeError('secret_store_unavailable', 'the data key of this webhook secret is gone');
    const dec = createDecipheriv('aes-256-gcm', key, r.secret_iv);
    dec.setAAD(aad(r.tenant_id, r.id));
    dec.setAuthTag(r.secret_tag);
    const secret = Buffer.concat([dec.update(r.secret_ct), dec.final()]).toString('utf8');
    this.secrets.set(r.id, { at: r.secret_set_at, secret });
    return secret;
  }

  private async hook(tenantId: string, id: string): Promise<WebhookRow> {
    const r = await this.d.store.get(tenantId, id);
    if (!r) throw runtimeError('webhook_not_found', `no webhook ${id}`);
    return r;
  }

  /**
   * Create a hook owned by the caller. @returns the view with the secret (shown this once).
   * @throws `agent_not_found` (an agent_run target naming an agent the caller cannot use), `secret_store_unavailable`.
   */
  async create(c: WebhookCaller, body: WebhookCreate): Promise<WebhookCreated> {
    if (body.target.kind === 'agent_run' && this.d.agentVisible && !(await this.d.agentVisible(c.tenantId, c.userId, body.target.agent_id))) {
      throw runtimeError('agent_not_found', `no agent ${body.target.agent_id}`);
    }
    const id = `wh_${newId()}`;
    const secret = newWebhookSecret();
    const at = new Date(this.now()).toISOString();
    const row: WebhookRow = {
      id, tenant_id: c.tenantId, name: body.name.trim() || body.name, target: body.target, owner_id: c.userId,
      owner_roles: [...c.roles], owner_groups: [...c.groups], ...await this.sealed(c.tenantId, id, secret), secret_set_at: at, created_at: at,
    };
    await this.d.store.put(row);
    this.secrets.set(id, { at, secret });
    return { ...view(row), secret };
  }

  /** The tenant's hooks, oldest first (no secrets). */
  async list(tenantId: string): Promise<WebhookView[]> { return (await this.d.store.list(tenantId)).map(view); }

  /** One hook (no secret). @throws `webhook_not_found`. */
  async get(tenantId: string, id: string): Promise<WebhookView> { return view(await this.hook(tenantId, id)); }

  /** A new secret; the old one fails from now on. @throws `webhook_not_found`. */
  async rotate(tenantId: string, id: string): Promise<WebhookRotated> {
    await this.hook(tenantId, id);
    const secret = newWebhookSecret();
    let at = new Date(this.now()).toISOString();
    const prev = this.secrets.get(id);
    if (prev && prev.at === at) at = new Date(this.now() + 1).toISOString();
    if (!(await this.d.store.setSecret(tenantId, id, { ...await this.sealed(tenantId, id, secret), secret_set_at: at }))) throw runtimeError('webhook_not_found', `no webhook ${id}`);
    this.secrets.set(id, { at, secret });
    return { id, secret };
  }

  /** Delete a hook with its deliveries. @throws `webhook_not_found`. */
  async delete(tenantId: string, id: string): Promise<void> {
    if (!(await this.d.store.delete(tenantId, id))) throw runtimeError('webhook_not_found', `no webhook ${id}`);
    this.secrets.delete(id);
  }

  /** A hook's recent deliveries, newest first. @throws `webhook_not_found`. */
  async deliveries(tenantId: string, id: string, limit = 50): Promise<WebhookDelivery[]> {
    await this.hook(tenantId, id);
    return (await this.d.store.deliveries(tenantId, id, limit)).map(deliveryView);
  }

  /**
   * Accept one delivery. @returns the 202 body.
   * @throws `webhook_not_found` (404), `webhook_timestamp_invalid` / `webhook_signature_invalid` (401),
   *   `webhook_replayed` (409), and the target's errors (e.g. `agent_not_found`), each recorded and audited.
   */
  async deliver(input: DeliveryInput): Promise<WebhookAccepted> {
    const deliveryId = newId();
    const hook = input.hookId ? await this.d.store.get(input.tenantId, input.hookId) : undefined;
    if (!hook) {
      this.d.audit.delivery({ tenantId: input.tenantId, userId: null, hookId: input.hookId ?? '', deliveryId, outcome: 'rejected', code: 'webhook_not_found', turnId: null, notificationId: null });
      throw runtimeError('webhook_not_found', 'no such webhook');
    }
    const record = async (outcome: 'accepted' | 'rejected', code: string | null, turnId: string | null, notificationId: string | null): Promise<void> => {
      await this.d.store.addDelivery({
        id: deliveryId, tenant_id: hook.tenant_id, hook_id: hook.id, received_at: new Date(this.now()).toISOString(), outcome, code, turn_id: turnId, notification_id: notificationId,
      }, WEBHOOK_DELIVERIES_KEPT);
      this.d.audit.delivery({ tenantId: hook.tenant_id, userId: hook.owner_id, hookId: hook.id, deliveryId, outcome, code, turnId, notificationId });
    };
    const nowMs = this.now();
    const v = verifyWebhook(await this.secretOf(hook), input.timestamp, input.signature, input.rawBody, Math.floor(nowMs / 1000));
    if (!v.ok) {
      await record('rejected', v.code, null, null);
      throw runtimeError(v.code, v.code === 'webhook_timestamp_invalid'
        ? `X-Svc-Timestamp must be Unix seconds within ${WEBHOOK_WINDOW_SECONDS} s of now` : 'X-Svc-Signature does not match the body');
    }
    // A signature stays verifiable for the whole ±window around its timestamp: remember it that long.
    if (!(await this.d.store.remember(hook.id, v.signature, nowMs, nowMs + 2 * WEBHOOK_WINDOW_SECONDS * 1000))) {
      await record('rejected', 'webhook_replayed', null, null);
      throw runtimeError('webhook_replayed', 'this delivery was received already');
    }
    try {
      if (hook.target.kind === 'notification') {
        const text = payloadText(input.rawBody);
        const notificationId = await this.d.notifier.notify({
          tenantId: hook.tenant_id, userId: hook.target.user_id, hookId: hook.id, hookName: hook.name, deliveryId, payload: parsed(text), summary: text,
        });
        await record('accepted', null, null, notificationId);
        return { delivery_id: deliveryId, accepted: true, notification_id: notificationId };
      }
      const run = await this.d.runner.start({
        tenantId: hook.tenant_id, userId: hook.owner_id, roles: hook.owner_roles, groups: hook.owner_groups, agentId: hook.target.agent_id,
        input: payloadText(input.rawBody) || '(empty webhook payload)', hookId: hook.id, deliveryId,
      });
      await record('accepted', null, run.turnId, null);
      return { delivery_id: deliveryId, accepted: true, turn_id: run.turnId };
    } catch (err) {
      await record('rejected', isDomainError(err) ? err.code : 'internal_error', null, null);
      throw err;
    }
  }
}

/** The payload as JSON when it parses, else its text. */
function parsed(text: string): unknown {
  try { return JSON.parse(text) as unknown; } catch { return text; }
}
