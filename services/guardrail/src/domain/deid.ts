/**
 * De-identification use cases (DESIGN.md `POST /v1/guard/deidentify`, `/reidentify`): entity spans
 * of the effective policy's types (or the types asked for) become placeholders `<TYPE_N>`, stable
 * per value within a turn and owned by the acting user; reidentify restores only the owner's values.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { DeidentifyRequest, DeidentifyResponse, EntityType, GuardrailErrorCode, ReidentifyRequest, ReidentifyResponse } from '../contracts.js';
import { deidentify, placeholdersIn, reidentify } from './deidentify.js';
import type { PolicyBook } from './policies.js';
import type { DeidMappingStore, Scanner } from './ports.js';
import { inProcessScanner, ScanIncomplete } from './scanner.js';
import { actingUser, callerTenant, type Caller } from './scope.js';

/** The de-identification use cases. */
export class Deidentifier {
  /**
   * @param tenantId the service's pinned tenant (for principals without one).
   * @param scanner where the recognisers run (the service: the worker pool); default in-process.
   */
  constructor(private readonly d: { policies: PolicyBook; mappings: DeidMappingStore; tenantId: string; scanner?: Scanner }) {}

  /**
   * Replace the entities of `body.content` by the turn's placeholders.
   * @throws DomainError `tenant_mismatch`, `turn_missing` (no X-Svc-Turn-Id), `scan_incomplete`
   * (the recognisers did not finish within the scan budget; nothing is stored).
   */
  async deidentify(c: Caller, body: DeidentifyRequest): Promise<DeidentifyResponse> {
    const p = c.principal;
    const tenantId = callerTenant(p, body.scope.tenant_id, this.d.tenantId);
    const turnId = requireTurn(c);
    const { policy } = await this.d.policies.effective(tenantId, body.scope.agent_id);
    const types: EntityType[] = body.entities ?? [...policy.pii.entities, ...(policy.secrets.input === 'off' ? [] : ['SECRET' as const])];
    let spans;
    try {
      spans = await (this.d.scanner ?? inProcessScanner).entities(body.content, { types });
    } catch (err) {
      if (!(err instanceof ScanIncomplete)) throw err;
      if (err.kind === 'busy' || err.kind === 'closed') throw new DomainError<GuardrailErrorCode>('service_unavailable', 'the guard is busy; try again');
      throw new DomainError<GuardrailErrorCode>('scan_incomplete', `the content could not be scanned for personal data within ${err.budgetMs} ms (${err.kind}); nothing was de-identified`);
    }
    const out = await this.d.mappings.assignPlaceholders(tenantId, turnId, actingUser(p, body.user_id), (mapping) => deidentify(body.content, spans, mapping));
    return { deidentified: out.deidentified, entities: out.entities };
  }

  /**
   * Replace the placeholders of `body.turn_id` (default: the caller's turn) the acting user owns.
   * @throws DomainError `turn_missing` (neither `turn_id` nor X-Svc-Turn-Id).
   */
  async reidentify(c: Caller, body: ReidentifyRequest): Promise<ReidentifyResponse> {
    const p = c.principal;
    const turnId = body.turn_id ?? requireTurn(c);
    if (!placeholdersIn(body.content).length) return { content: body.content, replaced: 0 };
    const values = await this.d.mappings.valuesFor(p.tenant_id || this.d.tenantId, turnId, actingUser(p, body.user_id));
    return reidentify(body.content, values);
  }
}

function requireTurn(c: Caller): string {
  if (!c.turnId) throw new DomainError<GuardrailErrorCode>('turn_missing', 'de-identification needs the X-Svc-Turn-Id of the turn');
  return c.turnId;
}
