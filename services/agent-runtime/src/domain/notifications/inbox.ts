/**
 * Notification use cases (spec "Agent runtime surfaces": `/v1/notifications*` and the producer
 * entry `POST /v1/internal/notifications`; "Limits"; issue 13 item 1): producers (allow-listed
 * services, and the runtime itself in-process) post notifications for a (tenant, user), exactly once
 * per idempotency key; the user lists them newest first, reads the unread count, marks one or all
 * read, and follows changes live through the hub.
 */
import type { Principal } from '../../../../shared/identity/principal-types.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import type { NotificationCreate, NotificationPage, NotificationQuery, NotificationView } from '../../contracts.js';
import { runtimeError } from '../errors.js';
import type { Owner } from '../sessions.js';
import type { NotificationHub, StreamListener } from './hub.js';
import { decodeCursor, encodeCursor, payloadText, producerOf } from './payload.js';
import type { NotificationRow, NotificationStore } from './ports.js';

const nextId = ulidFactory();

/** Default page size of the inbox. */
export const DEFAULT_PAGE = 50;

/** Row -> view (payload parsed). */
export function notificationView(r: NotificationRow): NotificationView {
  let payload: NotificationView['payload'] = null;
  if (r.payload !== null) {
    try { payload = JSON.parse(r.payload) as NotificationView['payload']; } catch { payload = null; }
  }
  return { id: r.id, kind: r.kind, title: r.title, body: r.body, payload, read_at: r.read_at, created_at: r.created_at };
}

/** What the notification use cases need. */
export interface NotificationsDeps {
  store: NotificationStore;
  hub: NotificationHub;
  /** NOTIFICATIONS_MAX_PER_USER. */
  maxPerUser: number;
  /** NOTIFICATIONS_PRODUCERS: service names allowed to post. */
  producers: readonly string[];
  now?: () => Date;
}

/** The outcome of a post: the notification and whether it is new (201) or the original of a repeated key (200). */
export interface Posted { notification: NotificationView; fresh: boolean }

/** Notifications of the users of the runtime. */
export class Notifications {
  private readonly producers: ReadonlySet<string>;
  private readonly now: () => Date;

  constructor(private readonly d: NotificationsDeps) {
    this.producers = new Set(d.producers);
    this.now = d.now ?? (() => new Date());
  }

  /**
   * A service posts a notification (`POST /v1/internal/notifications`).
   * @throws DomainError `service_account_required`, `producer_not_allowed` (403), `payload_too_large`
   *   (413), `payload_too_deep` (400), `invalid_request`.
   */
  post(caller: Pick<Principal, 'id' | 'auth_method'>, input: NotificationCreate): Promise<Posted> {
    return this.deliver(producerOf(caller, this.producers), input);
  }

  /**
   * Store a notification from `producer` (already authorised: the runtime's own producers call
   * this in-process) and tell the user's live streams when it is new.
   * @throws DomainError `payload_too_large`, `payload_too_deep`, `invalid_request`.
   */
  async deliver(producer: string, input: NotificationCreate): Promise<Posted> {
    const row: NotificationRow = {
      id: nextId(), tenant_id: input.tenant_id, user_id: input.user_id, kind: input.kind, title: input.title, body: input.body ?? null,
      payload: payloadText(input.payload), producer, idempotency_key: input.idempotency_key ?? null, read_at: null,
      created_at: this.now().toISOString(),
    };
    const out = await this.d.store.add(row, this.d.maxPerUser);
    const notification = notificationView(out.row);
    if (out.fresh) {
      this.d.hub.publish(row.tenant_id, row.user_id, 'notification', notification);
      await this.countChanged(row.tenant_id, row.user_id);
    }
    return { notification, fresh: out.fresh };
  }

  /**
   * The owner's notifications, newest first (`limit` default 50).
   * @throws DomainError `invalid_request` for a malformed cursor.
   */
  async list(o: Owner, q: NotificationQuery): Promise<NotificationPage> {
    const limit = q.limit ?? DEFAULT_PAGE;
    const rows = await this.d.store.list(o.tenantId, o.userId, q.cursor ? decodeCursor(q.cursor) : null, limit + 1);
    const page = rows.slice(0, limit);
    const out: NotificationPage = { items: page.map(notificationView) };
    if (rows.length > limit) out.next_cursor = encodeCursor(page[page.length - 1]!.id);
    return out;
  }

  /** The owner's unread count. */
  unreadCount(o: Owner): Promise<number> {
    return Promise.resolve(this.d.store.unreadCount(o.tenantId, o.userId));
  }

  /**
   * Mark one of the owner's notifications read (a read one stays as it was).
   * @throws DomainError `notification_not_found` (absent or another user's).
   */
  async markRead(o: Owner, id: string): Promise<NotificationView> {
    const row = await this.d.store.markRead(id, o.tenantId, o.userId, this.now().toISOString());
    if (!row) throw runtimeError('notification_not_found', `no notification ${id}`);
    await this.countChanged(o.tenantId, o.userId);
    return notificationView(row);
  }

  /** Mark every unread notification of the owner read. @returns how many changed. */
  async markAllRead(o: Owner): Promise<number> {
    const marked = await this.d.store.markAllRead(o.tenantId, o.userId, this.now().toISOString());
    if (marked) await this.countChanged(o.tenantId, o.userId);
    return marked;
  }

  /** The matter a notification announced is settled (an approval decided): mark it read, by its idempotency key. */
  async settle(o: Owner, key: string): Promise<void> {
    if (await this.d.store.markReadByKey(o.tenantId, o.userId, key, this.now().toISOString())) await this.countChanged(o.tenantId, o.userId);
  }

  /** Follow the owner's notifications: the current unread count at once, then every change. @returns stop. */
  follow(o: Owner, l: StreamListener): () => void {
    const stop = this.d.hub.subscribe(o.tenantId, o.userId, l);
    // SQLite answers within this call's microtasks, before any other event; PostgreSQL a round trip later.
    this.unreadCount(o).then((count) => l.send('unread_count', { count }), () => l.close());
    return stop;
  }

  /** End every live stream (shutdown). */
  closeStreams(): void {
    this.d.hub.closeAll();
  }

  private async countChanged(tenantId: string, userId: string): Promise<void> {
    if (this.d.hub.watched(tenantId, userId)) this.d.hub.publish(tenantId, userId, 'unread_count', { count: await this.d.store.unreadCount(tenantId, userId) });
  }
}
