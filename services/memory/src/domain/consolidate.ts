/**
 * Consolidation (spec "Memory"): remove expired memories, then merge near-duplicates within each
 * (scope, agent, session, type) group. With the `memory` role mapped, it decides ADD/UPDATE/DELETE/
 * NONE per cluster of near-duplicates; otherwise the newest (pinned first) memory of a cluster stays
 * and the rest are merged into it. Runs on request (`POST /v1/memory/consolidate`, one scope) and
 * on the service's timer (every scope).
 */
import { analyze, dot } from '../../../embedder/src/index.js';
import type { ConsolidationDecision, ConsolidationReport, MemoryScope } from '../contracts.js';
import type { MemoryDeps } from './deps.js';
import type { MemoryRow, StampedHeaders } from './ports.js';
import { contentKey, jaccard, nowIso, scopeKey, type Scope } from './records.js';
import { CONSOLIDATE_PROMPT } from './role-prompts.js';
import { ConsolidationJobs, type ConsolidationHandle } from './consolidation-jobs.js';
import { resolveScope, type Caller } from './scopes.js';

/** Term overlap at or above which two memories without vectors are near-duplicates. */
const TERM_OVERLAP_MIN = 0.8;

/** What one cluster's decision did. */
interface ClusterOutcome { decisions: ConsolidationDecision[]; merged: number; by: 'memory_role' | 'deterministic' }

/** The consolidation use case. */
export class Consolidator {
  /** `jobs` (issue 19 item 5): every pass is recorded there and may be cancelled between clusters. */
  constructor(private readonly d: MemoryDeps, private readonly jobs: ConsolidationJobs = new ConsolidationJobs()) {}

  /**
   * Consolidate the caller's scope (or the one named, within the caller's reach), asking the
   * memory role with the caller's headers. @throws DomainError `scope_forbidden`.
   */
  forCaller(c: Caller, s: MemoryScope | undefined): Promise<ConsolidationReport> {
    return this.consolidate(c.principal.id, c.headers, resolveScope(c.principal, s));
  }

  /**
   * Consolidate `only` one scope, or every scope when null. `actor` is recorded in the history;
   * `headers` go to the memory role (none: the deterministic path).
   */
  async consolidate(actor: string, headers: StampedHeaders, only: Scope | null): Promise<ConsolidationReport> {
    const job = this.jobs.begin(actor, only ? 'scope' : 'all');
    try {
      const r = await this.run(actor, headers, only, job);
      job.end(r);
      return r;
    } catch (err) { job.end(null, err); throw err; }
  }

  private async run(actor: string, headers: StampedHeaders, only: Scope | null, job: ConsolidationHandle): Promise<ConsolidationReport> {
    const { memories, history, tx } = this.d;
    const now = nowIso();
    const decisions: ConsolidationDecision[] = [];
    let expired = 0;
    let merged = 0;
    let decidedBy: ConsolidationReport['decided_by'] = 'deterministic';
    for (const m of await memories.expired(now)) {
      if (only && m.scope_key !== scopeKey(only)) continue;
      await tx(async () => {
        await memories.delete(m.rid);
        await history.add({ memory_id: m.id, tenant_id: m.tenant_id, user_id: m.user_id, event: 'EXPIRE', actor_id: actor, user_initiated: false, old_content: m.content, new_content: null, reason: `expired at ${m.expires_at}`, at: now });
      });
      expired++;
    }
    const scopes = only ? [{ scope_key: scopeKey(only), tenant_id: only.tenant_id, user_id: only.user_id }] : await memories.scopes();
    job.progress(0, scopes.length);
    for (const [i, s] of scopes.entries()) {
      if (job.cancelled) break;
      const rows = await memories.all({ scopeKey: s.scope_key, now });
      const groups = new Map<string, MemoryRow[]>();
      for (const r of rows) {
        const k = `${r.agent_id ?? ''}|${r.session_id ?? ''}|${r.memory_type}`;
        (groups.get(k) ?? groups.set(k, []).get(k)!).push(r);
      }
      for (const g of groups.values()) {
        for (const cluster of await this.clusters(g)) {
          if (job.cancelled) break;
          const res = await this.decideCluster(actor, headers, cluster, now);
          decisions.push(...res.decisions);
          merged += res.merged;
          if (res.by === 'memory_role') decidedBy = 'memory_role';
        }
      }
      job.progress(i + 1, scopes.length);
    }
    return { scopes: scopes.length, expired_removed: expired, merged, decisions, decided_by: decidedBy };
  }

  /** Groups of near-duplicates (single link over cosine, or term overlap without vectors). */
  private async clusters(rows: MemoryRow[]): Promise<MemoryRow[][]> {
    if (rows.length < 2) return [];
    const vecs = await this.d.vectors.vectors(rows.map((r) => r.rid));
    const terms = rows.map((r) => new Set(analyze(r.content)));
    const parent = rows.map((_, i) => i);
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
    for (let i = 0; i < rows.length; i++) {
      for (let j = i + 1; j < rows.length; j++) {
        const a = vecs.get(rows[i]!.rid);
        const b = vecs.get(rows[j]!.rid);
        const near = contentKey(rows[i]!.content) === contentKey(rows[j]!.content)
          || (a && b ? dot(a, b) >= this.d.settings.duplicateSimilarity : jaccard(terms[i]!, terms[j]!) >= TERM_OVERLAP_MIN);
        if (near) parent[find(i)] = find(j);
      }
    }
    const out = new Map<number, MemoryRow[]>();
    rows.forEach((r, i) => { const k = find(i); (out.get(k) ?? out.set(k, []).get(k)!).push(r); });
    return [...out.values()].filter((c) => c.length > 1);
  }

  /** Decide one cluster: by the memory role when it answers usable decisions, else deterministically. */
  private async decideCluster(actor: string, headers: StampedHeaders, cluster: MemoryRow[], now: string): Promise<ClusterOutcome> {
    const sorted = [...cluster].sort((a, b) => (Number(b.pinned) - Number(a.pinned)) || b.updated_at.localeCompare(a.updated_at));
    const answer = Object.keys(headers).length
      ? await this.d.role.ask(headers, CONSOLIDATE_PROMPT, JSON.stringify(sorted.map((r) => ({ id: r.id, content: r.content, updated_at: r.updated_at }))))
      : null;
    const fromRole = Array.isArray(answer?.decisions) ? (answer.decisions as Array<Record<string, unknown>>) : null;
    if (fromRole) {
      const byRole = await this.applyRoleDecisions(actor, cluster, fromRole, now);
      if (byRole) return byRole;
    }
    return this.mergeIntoNewest(actor, sorted, now);
  }

  /** Apply the role's decisions; null when none is valid or no memory would survive. */
  private async applyRoleDecisions(actor: string, cluster: MemoryRow[], fromRole: Array<Record<string, unknown>>, now: string): Promise<ClusterOutcome | null> {
    const { memories, history, tx } = this.d;
    const ids = new Set(cluster.map((r) => r.id));
    const valid = fromRole.filter((x) => typeof x.memory_id === 'string' && ids.has(x.memory_id) && ['ADD', 'UPDATE', 'DELETE', 'NONE'].includes(String(x.event)));
    const survivors = cluster.filter((r) => !valid.some((x) => x.memory_id === r.id && x.event === 'DELETE'));
    if (!valid.length || !survivors.length) return null;
    const decisions: ConsolidationDecision[] = [];
    let merged = 0;
    for (const x of valid) {
      const r = cluster.find((m) => m.id === x.memory_id)!;
      const reason = typeof x.reason === 'string' ? x.reason.slice(0, 500) : 'decided by the memory role';
      if (x.event === 'DELETE') {
        await tx(async () => { await memories.delete(r.rid); await history.add({ memory_id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, event: 'MERGE', actor_id: actor, user_initiated: false, old_content: r.content, new_content: null, reason, at: now }); });
        merged++;
        decisions.push({ event: 'DELETE', memory_id: r.id, reason });
      } else if (x.event === 'UPDATE' && typeof x.content === 'string' && x.content.trim()) {
        const content = x.content.trim().slice(0, 8000);
        await tx(async () => {
          await memories.update(r.rid, { content, content_key: contentKey(content), memory_type: r.memory_type, pinned: r.pinned, expires_at: r.expires_at, why_stored: r.why_stored }, analyze(content).join(' '), now);
          await history.add({ memory_id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, event: 'UPDATE', actor_id: actor, user_initiated: false, old_content: r.content, new_content: content, reason, at: now });
        });
        decisions.push({ event: 'UPDATE', memory_id: r.id, reason });
      } else {
        decisions.push({ event: x.event === 'ADD' ? 'ADD' : 'NONE', memory_id: r.id, reason });
      }
    }
    this.d.dense.kick();
    return { decisions, merged, by: 'memory_role' };
  }

  /** Keep the newest (pinned first) memory of a cluster and merge the rest into it. */
  private async mergeIntoNewest(actor: string, sorted: MemoryRow[], now: string): Promise<ClusterOutcome> {
    const { memories, history, tx } = this.d;
    const keep = sorted[0]!;
    const decisions: ConsolidationDecision[] = [{ event: 'NONE', memory_id: keep.id, reason: 'newest (or pinned) of its near-duplicates; kept' }];
    let merged = 0;
    for (const r of sorted.slice(1)) {
      await tx(async () => {
        await memories.delete(r.rid);
        await history.add({ memory_id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, event: 'MERGE', actor_id: actor, user_initiated: false, old_content: r.content, new_content: null, reason: `near-duplicate merged into ${keep.id}`, at: now });
      });
      merged++;
      decisions.push({ event: 'DELETE', memory_id: r.id, merged_into: keep.id, reason: 'near-duplicate of a newer memory' });
    }
    return { decisions, merged, by: 'deterministic' };
  }
}
