/**
 * Ports of the skill library (issue 17 item 2): the store of skills and their versions
 * (store/skills.ts). Pure types.
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { CatalogScope, SkillFile, SkillVersion } from '../../contracts.js';

/** A stored skill at its current version (table `skills`, migration 0008). */
export interface SkillRow {
  id: string;
  tenant_id: string;
  owner_id: string;
  scope: CatalogScope;
  name: string;
  description: string;
  content: string;
  version: number;
  sha256: string;
  /** Optional files by path (migration 0013; `[]` when none). */
  files: SkillFile[];
  created_at: string;
  updated_at: string;
}

/** Skills and their versions (Awaitable: SQLite answers now, PostgreSQL later; issue 21 item 1). */
export interface SkillStore {
  get(tenantId: string, id: string): Awaitable<SkillRow | undefined>;
  /** The tenant's skills and `ownerId`'s personal ones, by name. */
  visible(tenantId: string, ownerId: string): Awaitable<SkillRow[]>;
  /**
   * Insert or update the row and add its version (one transaction).
   * @returns false when the name is taken in the same scope (and owner).
   */
  save(row: SkillRow, createdBy: string): Awaitable<boolean>;
  /** Delete the skill and its versions. */
  delete(tenantId: string, id: string): Awaitable<boolean>;
  /** Versions, newest first. */
  versions(tenantId: string, id: string): Awaitable<SkillVersion[]>;
}
