/**
 * Registry administration use cases (spec "Inference router": `/v1/admin/inference/{rest}`, admin
 * role, "plus audit logging"; issue 4 "an audit row per change"): each change goes through the
 * registry (which refreshes the snapshot at once), then appends one audit row naming the admin
 * (`inference.provider.created|updated|deleted`, `inference.role.updated|cleared`). Keys never
 * reach a row (reported as `has_api_key`).
 */
import type { ProviderInput, ProviderPatch, ProviderView, RoleInput, RoleView } from '../contracts.js';
import type { AdminAudit } from './ports.js';
import type { Registry } from './registry.js';

/** The registry's admin operations, audited. Errors as `Registry`. */
export class RegistryAdmin {
  constructor(private readonly registry: Registry, private readonly audit: AdminAudit) {}

  /** Register a provider (normalised, probed). */
  async createProvider(input: ProviderInput, adminId: string): Promise<ProviderView> {
    const view = await this.registry.create(input);
    await this.audit.record({
      action: 'inference.provider.created', resourceType: 'inference_provider', resourceId: view.id, userId: adminId,
      detail: { name: view.name, base_url: view.base_url, submitted_base_url: input.base_url.slice(0, 2048), adapter: view.adapter, models: view.models.length, has_api_key: view.has_api_key },
    });
    return view;
  }

  /** Change a provider (re-probed when base_url, adapter or key change). */
  async updateProvider(id: string, patch: ProviderPatch, adminId: string): Promise<ProviderView> {
    const { view, reprobed } = await this.registry.update(id, patch);
    await this.audit.record({
      action: 'inference.provider.updated', resourceType: 'inference_provider', resourceId: view.id, userId: adminId,
      detail: { changed: Object.keys(patch).map((k) => (k === 'api_key' ? 'api_key' : k)), name: view.name, base_url: view.base_url, adapter: view.adapter, has_api_key: view.has_api_key, reprobed },
    });
    return view;
  }

  /** Delete a provider (its key and role targets go too). */
  async deleteProvider(id: string, adminId: string): Promise<void> {
    const before = await this.registry.get(id);
    const roles = await this.registry.remove(id);
    await this.audit.record({
      action: 'inference.provider.deleted', resourceType: 'inference_provider', resourceId: before.id, userId: adminId,
      detail: { name: before.name, base_url: before.base_url, roles_affected: roles },
    });
  }

  /** Map a role to one target or an ordered list. */
  async setRole(role: string, input: RoleInput, adminId: string): Promise<RoleView> {
    const view = await this.registry.setRole(role, input);
    await this.audit.record({ action: 'inference.role.updated', resourceType: 'inference_role', resourceId: view.role, userId: adminId, detail: { targets: view.targets } });
    return view;
  }

  /** Clear a role. */
  async clearRole(role: string, adminId: string): Promise<void> {
    await this.registry.clearRole(role);
    await this.audit.record({ action: 'inference.role.cleared', resourceType: 'inference_role', resourceId: role, userId: adminId, detail: {} });
  }
}
