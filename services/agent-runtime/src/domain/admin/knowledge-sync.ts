/**
 * Keeps the knowledge service's copy of the permission profiles current (issue 13 item 8): the
 * runtime owns the profiles; the knowledge service narrows what a restricted caller reads from the
 * copy pushed here, so no read waits on a call to the runtime. The tenant's whole list is pushed
 * after every change (the admin's write waits for it, so the next read is narrowed) and at start;
 * a push that fails is retried every `retryMs` until one lands (the newest list wins: each retry
 * reads the list again). Never throws.
 */
import type { PermissionProfile } from '../../contracts.js';

/** Where the list goes (services/knowledge/src/client.ts `KnowledgeAccessClient`). */
export interface ProfilePushPort {
  replaceProfiles(profiles: ReadonlyArray<Pick<PermissionProfile, 'id' | 'roles' | 'groups' | 'knowledge'>>): Promise<unknown>;
}

/** Dependencies of `KnowledgeScopeSync`. */
export interface KnowledgeScopeSyncDeps {
  port: ProfilePushPort;
  profiles: { list(tenantId: string): Promise<PermissionProfile[]> };
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Wait between retries of a failed push, ms (default 5000). */
  retryMs?: number;
}

/** Pushes the tenant's profiles to the knowledge service, retrying until one lands. */
export class KnowledgeScopeSync {
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly d: KnowledgeScopeSyncDeps) {}

  /** Push the tenant's current list. @returns whether it landed (else a retry is scheduled). */
  async push(tenantId: string): Promise<boolean> {
    const pending = this.retries.get(tenantId);
    if (pending) { clearTimeout(pending); this.retries.delete(tenantId); }
    const profiles = (await this.d.profiles.list(tenantId)).map(({ id, roles, groups, knowledge }) => ({ id, roles, groups, knowledge }));
    try {
      await this.d.port.replaceProfiles(profiles);
      if (pending) this.d.log.info({ tenant_id: tenantId, profiles: profiles.length }, 'permission profiles reached the knowledge service');
      return true;
    } catch (err) {
      if (!pending) this.d.log.warn({ tenant_id: tenantId, err: err instanceof Error ? err.message : String(err) }, 'permission profiles did not reach the knowledge service; retrying');
      if (!this.closed) {
        const t = setTimeout(() => { void this.push(tenantId); }, this.d.retryMs ?? 5000);
        t.unref();
        this.retries.set(tenantId, t);
      }
      return false;
    }
  }

  /** Stop retrying (shutdown). */
  close(): void {
    this.closed = true;
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
  }
}
