/**
 * What the router's domain needs from persistence and the outside world. `store/` implements the
 * registry and key stores (SQLite, OS keychain or encrypted file), `engine/` the local models,
 * `adapters/` the providers (domain/upstream.ts), and the observability and audit clients the
 * records, budgets, spans and admin rows. Shaped so another database could stand behind them.
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { GenerationInput, BudgetStatus } from '../../../observability/src/contracts.js';
import type { AdapterKind, RoleTarget, SecretStoreKind } from '../contracts.js';

/** A registered provider as stored (its key lives in the `SecretStore`, never here). */
export interface ProviderRow {
  id: string;
  name: string;
  base_url: string;
  adapter: AdapterKind;
  models: string[];
  has_key: boolean;
  created_at: string;
  updated_at: string;
  probed_at: string | null;
}

/** A role's ordered targets as stored. */
export interface RoleRow { role: string; targets: RoleTarget[]; updated_at: string | null }

/** Providers and role targets. */
export interface RegistryStore {
  /** Every provider, oldest first. */
  providers(): Awaitable<ProviderRow[]>;
  /** One provider, or null. */
  provider(id: string): Awaitable<ProviderRow | null>;
  /** A provider by name, or null. */
  providerByName(name: string): Awaitable<ProviderRow | null>;
  /** Insert a provider. @throws on a duplicate name an error whose `code` starts with `SQLITE_CONSTRAINT` (SQLite) or is `23505` (PostgreSQL). */
  insert(p: ProviderRow): Awaitable<void>;
  /** Replace a provider's fields. */
  update(p: ProviderRow): Awaitable<void>;
  /** Delete a provider and every role target naming it. @returns the roles that lost targets. */
  remove(id: string): Awaitable<string[]>;
  /** Every role that has targets. */
  roles(): Awaitable<RoleRow[]>;
  /** Replace a role's ordered targets (empty clears it). */
  setRole(role: string, targets: RoleTarget[]): Awaitable<void>;
}

/** Where provider keys are kept. `get` is synchronous (the snapshot is built synchronously). */
export interface SecretStore {
  readonly kind: SecretStoreKind;
  get(id: string): string | null;
  set(id: string, value: string): void | Promise<void>;
  delete(id: string): void | Promise<void>;
}

/** A GGUF file found on disk (a model of provider `local`, id = file name without `.gguf`). */
export interface LocalModelFile { id: string; path: string; size: number; mtimeMs: number }

/** sha256 of local weight files, computed once per (size, mtime). */
export interface WeightHashes {
  /** The hash of `f` (computed once, off the hot path). */
  hash(f: LocalModelFile): Promise<string>;
  /** The hash if already computed, else null (never waits). */
  peek(path: string): string | null;
}

/** Span attributes (OpenTelemetry-style, flat). */
export type SpanAttributes = Record<string, string | number | boolean | null>;

/** A span being timed (observability's `ActiveSpan` fits). */
export interface TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** The traceparent naming this span, for outbound calls. */
  traceparent(): string;
  /** Set attributes (last write wins). */
  set(attrs: SpanAttributes): this;
  /** A child span. */
  child(name: string, kind?: 'server' | 'client' | 'internal'): TraceSpan;
  /** Finish the span (idempotent). */
  end(status?: 'ok' | 'error', attrs?: SpanAttributes): void;
}

/** Starts root spans when a call has no request span. */
export interface Tracer {
  start(name: string, kind: 'server' | 'client' | 'internal', parent: null): TraceSpan;
}

/** The tenant's budget, as observability reports it (cached briefly; null when it could not say). */
export interface BudgetSource {
  status(): Promise<BudgetStatus | null>;
  /** Forget a cached answer (after a call that spent money). */
  invalidate(): void;
}

/** Where generation records go (observability, in the background). */
export interface GenerationSink {
  report(rec: GenerationInput, traceparent: string | null): void;
}

/** One admin change of the registry, for the audit log. `detail` must not hold secrets. */
export interface AdminChange {
  action: string;
  resourceType: 'inference_provider' | 'inference_role' | 'egress_destination';
  resourceId: string;
  userId: string;
  detail: Record<string, unknown>;
}

/** The audit log of admin changes; resolves once written or given up (never throws). */
export interface AdminAudit {
  record(change: AdminChange): Promise<void>;
}

/** Warnings of the domain (a pino logger fits). */
export interface DomainLog {
  warn(obj: object, msg: string): void;
}
