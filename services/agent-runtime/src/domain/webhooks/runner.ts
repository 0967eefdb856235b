/**
 * The `agent_run` target of a webhook (issue 18 item 2): the agent runs as the hook's owner with the
 * delivery's payload as the user's message, as a turn of its own that seals like any other.
 *
 * A chat turn gets its turn id, `turn_started` and `turn_sealed` from the gateway's admission chain;
 * a webhook run has no such request (the delivery's request is public and carries no turn), so the
 * runner plays that part itself: it mints the turn id (ULID), signs the owner's principal and the
 * turn's capability token with the same keys the gateway uses (services verify them as any turn's),
 * emits `turn_started` through the runtime's durable turn-event outbox, runs the chat engine (which
 * emits the turn's prompt, model and tool events under that id), then emits `turn_sealed` (or
 * `turn_failed`) and delivers. Audit seals the turn on its terminal event; the receipt is at
 * `GET /v1/receipts/{turn_id}` for the owner and admins.
 */
import { randomUUID } from 'node:crypto';
import type { ChatRequest } from '../../contracts.js';
import { STAMP_LIFETIME_SECONDS, capabilityToken, signStamp, type Principal } from '../../../../shared/identity/principal.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import type { EventSink, PreparedTurn, TurnIdentity, TurnOutcome } from '../chat/turn.js';
import type { TurnEvents } from '../ports.js';
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { AgentRunner, StartedRun } from './ports.js';

const nextTurnId = ulidFactory();

/** The part of the chat engine a webhook run uses. */
export interface RunEngine {
  prepare(req: ChatRequest, who: TurnIdentity): Awaitable<PreparedTurn>;
  attach(p: PreparedTurn, signal?: AbortSignal): Promise<PreparedTurn>;
  run(p: PreparedTurn, sink: EventSink, signal: AbortSignal): Promise<TurnOutcome>;
}

/** Dependencies of the runner. */
export interface WebhookRunnerDeps {
  engine: RunEngine;
  events: TurnEvents;
  /** Keys of `X-Svc-Principal` and `X-Svc-Cap-Token`, newest first (the gateway's). */
  principalKeys: readonly string[];
  capTokenKeys: readonly string[];
  log: { warn(obj: object, msg: string): void };
}

/** Starts and tracks webhook agent runs; `close` aborts what still runs. */
export class WebhookRunner implements AgentRunner {
  private readonly running = new Map<string, { ac: AbortController; done: Promise<void> }>();

  constructor(private readonly d: WebhookRunnerDeps) {}

  /** The stamped headers of a turn of `userId` (what the gateway forwards on a chat). */
  private identity(tenantId: string, userId: string, roles: string[], groups: string[], turnId: string): TurnIdentity {
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + STAMP_LIFETIME_SECONDS;
    const principal: Principal = { id: userId, tenant_id: tenantId, roles, groups, auth_method: 'service', iat, exp };
    const headers: Record<string, string> = {
      'x-svc-principal': signStamp(principal, this.d.principalKeys),
      'x-svc-turn-id': turnId,
      'x-correlation-id': randomUUID(),
    };
    if (this.d.capTokenKeys.length > 0) {
      headers['x-svc-cap-token'] = capabilityToken(userId, tenantId, turnId, this.d.capTokenKeys, iat);
    }
    return { tenantId, userId, turnId, headers, roles, groups };
  }

  /**
   * Prepare the turn (awaited before anything is emitted: an unknown agent or a bad input rejects
   * first) and run it in the background. @throws DomainError `agent_not_found`, `agent_not_allowed`, `invalid_request`.
   */
  async start(r: Parameters<AgentRunner['start']>[0]): Promise<StartedRun> {
    const turnId = nextTurnId();
    const who = this.identity(r.tenantId, r.userId, r.roles, r.groups, turnId);
    const prepared = await this.d.engine.prepare({ messages: [{ role: 'user', content: r.input }], agent_id: r.agentId }, who);
    const started = performance.now();
    this.d.events.emit(turnId, r.userId, 'turn_started', {
      method: 'POST', path: `/v1/webhook/${r.hookId}`, route: '/v1/webhook/*', correlation_id: who.headers['x-correlation-id'],
      trigger: 'webhook', hook_id: r.hookId, delivery_id: r.deliveryId,
    });
    const ac = new AbortController();
    const done = this.execute(prepared, ac.signal).then((o) => {
      const failed = o === null || o.status === 'failed';
      this.d.events.emit(turnId, r.userId, failed ? 'turn_failed' : 'turn_sealed', {
        status: failed ? 500 : 200, duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      });
      return this.d.events.deliver();
    }).then(() => undefined, (err: unknown) => {
      this.d.log.warn({ err: err instanceof Error ? err.message : String(err), turn_id: turnId }, 'webhook run events not delivered');
    }).finally(() => { this.running.delete(turnId); });
    this.running.set(turnId, { ac, done });
    return { turnId };
  }

  private async execute(p: PreparedTurn, signal: AbortSignal): Promise<TurnOutcome | null> {
    try {
      return await this.d.engine.run(await this.d.engine.attach(p, signal), () => {}, signal);
    } catch (err) {
      this.d.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'webhook agent run failed');
      return null;
    }
  }

  /** Runs still in progress. */
  get active(): number { return this.running.size; }

  /** Abort every run and wait for their terminal events (turn_failed). */
  async close(): Promise<void> {
    const all = [...this.running.values()];
    for (const r of all) r.ac.abort();
    await Promise.all(all.map((r) => r.done));
  }
}
