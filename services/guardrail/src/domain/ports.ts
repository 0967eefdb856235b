/**
 * What the guardrail's use cases need from persistence and the outside world. `store/` implements
 * the stores over SQLite and PostgreSQL (store ports answer `Awaitable`, issue 21 item 1), `clients/` the classifier over the inference router and the audit log
 * over the audit service's client; tests may pass fakes. Nothing here names a database type.
 */
import type { AuditAppendRequest } from '../../../audit/src/contracts.js';
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { PolicyOverride } from '../contracts.js';
import type { CheckOptions, GuardResult, GuardVerdict } from './check.js';
import type { NewMapping, TurnMapping } from './deidentify.js';
import type { EntitySpan } from './entities.js';
import type { FindEntitiesOptions } from './pii.js';

/** A stored policy override. */
export interface PolicyRecord {
  tenant_id: string;
  /** '' for the tenant level. */
  agent_id: string;
  policy: PolicyOverride;
  /** RFC 3339 UTC. */
  updated_at: string;
  /** Principal id of the admin who set it. */
  updated_by: string;
}

/** Policy overrides per tenant and agent (agent '' is the tenant level). */
export interface PolicyStore {
  getPolicy(tenantId: string, agentId: string): Awaitable<PolicyRecord | null>;
  /** Insert or replace the override of (tenant, agent). */
  putPolicy(tenantId: string, agentId: string, policy: PolicyOverride, by: string): Awaitable<void>;
  /** @returns true when an override was deleted. */
  deletePolicy(tenantId: string, agentId: string): Awaitable<boolean>;
}

/** Per-turn de-identification mappings, values encrypted at rest. */
export interface DeidMappingStore {
  /**
   * Read the turn's mapping, let `assign` extend it, and persist the additions atomically, so
   * concurrent calls of one turn never hand one number to two values. `ownerId` owns the additions.
   */
  assignPlaceholders<T extends { added: NewMapping[] }>(tenantId: string, turnId: string, ownerId: string, assign: (m: TurnMapping) => T): Awaitable<T>;
  /** Placeholder -> value for the owner's entries of a turn. */
  valuesFor(tenantId: string, turnId: string, ownerId: string): Awaitable<Map<string, string>>;
  /** Delete mappings created before `cutoffMs` (epoch ms). @returns how many. */
  purgeBefore(cutoffMs: number): Awaitable<number>;
}

/**
 * A classifier verdict: risk 0..1 and a short label (no content). The model judge (issue 16 item 3)
 * adds the taxonomy codes it named, its latency, and `failure` when it was asked and gave no verdict
 * (timeout, error, an answer outside the strict format): the policy's `on_failure` decides then.
 */
export interface ClassifierVerdict {
  risk: number;
  label: string;
  /** Taxonomy codes the judge named (domain/judge.ts `JUDGE_TAXONOMY`). */
  categories?: string[];
  /** How long the judge took, ms. */
  latency_ms?: number;
  /** Why a judge that was asked gave no verdict. */
  failure?: 'timeout' | 'error' | 'unparseable';
}

/** The optional model judge (the router's `guardrail` role). */
export interface Classifier {
  /**
   * Judge `content`; null when no judge is configured (the layer is absent). A judge that was asked
   * and did not answer in time or in format answers a verdict with `failure`. Never throws.
   */
  classify(content: string, direction: 'input' | 'output'): Promise<ClassifierVerdict | null>;
}

/** The audit log (spec "Audit actions"). */
export interface AuditLog {
  /** Append one row. @returns false (never throws) when audit is unreachable or refuses. */
  append(row: AuditAppendRequest): Promise<boolean>;
}

/** Turn events (`guardrail_verdict`, spec "Turn events"). */
export interface EventSink {
  emit(turnId: string, principalId: string, type: 'guardrail_verdict', payload: unknown): void;
  /** Wait until pending events landed or `timeoutMs` passed. @returns true when all landed. */
  deliver(timeoutMs?: number): Promise<boolean>;
}

/** Where the use cases report what they could not do (a block not recorded in audit). */
export interface Warn { warn(info: Record<string, unknown>, msg: string): void }

/** What `runCheck` answers: the check result and what it saw. */
export interface CheckOutcome { result: GuardResult; verdict: GuardVerdict }

/**
 * The scanners behind one port (issue 11 item 6): the service runs them in a pool of worker
 * threads with a time budget per call (scanning/scan-pool.ts), so one input cannot stall other
 * checks; tests may run them in-process (domain/scanner.ts).
 */
export interface Scanner {
  /** `runCheck(content, opts)`. @throws ScanIncomplete when the check could not finish (budget, busy, crash). */
  check(content: string, opts: CheckOptions): Promise<CheckOutcome>;
  /** `findEntities(content, opts)`. @throws ScanIncomplete as `check`. */
  entities(content: string, opts: FindEntitiesOptions): Promise<EntitySpan[]>;
}
