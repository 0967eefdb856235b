/**
 * The skill library (issue 17 item 2; spec "Agent runtime surfaces": `/v1/skills`): named
 * instruction packs in the SKILL.md form, tenant-wide (written by admins) or personal (by their
 * owner; to anyone else 404 `skill_not_found`). Every change of name, description or body makes a
 * new version (kept); `sha256` digests the SKILL.md form (contracts `skillMarkdown`).
 *
 * In a chat, the model is offered the visible skills' names and descriptions (`promptPart`) and
 * loads a body with the `load_skill` tool (load-tool.ts); a personal skill shadows a tenant skill of
 * the same name. A skill may carry up to 16 text files (`checkSkillFiles`), kept in its versions
 * and committed to by its hash (`skillSha256`).
 */
import { createHash } from 'node:crypto';
import {
  MAX_SKILL_FILE_BYTES, MAX_SKILL_FILES, skillFileManifest, skillMarkdown, type CatalogScope, type SkillCreate, type SkillFile, type SkillUpdate, type SkillVersion, type SkillView,
} from '../../contracts.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import { invalidField, runtimeError } from '../errors.js';
import type { CatalogCaller } from '../agents/ports.js';
import type { SkillRow, SkillStore } from './ports.js';

const newId = ulidFactory();

const hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Lowercase hex SHA-256 of a skill: of its SKILL.md form alone without files (unchanged since
 * before files existed), else of that form followed by its file manifest (contracts `skillFileManifest`).
 */
export function skillSha256(s: { name: string; description: string; content: string; files?: readonly SkillFile[] }): string {
  return hex(skillMarkdown(s) + (s.files?.length ? skillFileManifest(s.files, hex) : ''));
}

/**
 * Checked skill files, by path (issue 17 item 2): relative paths without `.`/`..` segments, unique,
 * at most 16, each at most 64 KiB of well-formed UTF-8 text without NUL.
 * @throws DomainError `invalid_request` naming the field.
 */
export function checkSkillFiles(files: readonly SkillFile[] | undefined, field = 'body.files'): SkillFile[] {
  const list = files ?? [];
  if (list.length > MAX_SKILL_FILES) throw invalidField(`a skill carries at most ${MAX_SKILL_FILES} files`, field);
  const seen = new Set<string>();
  for (const [i, f] of list.entries()) {
    if (f.path.split('/').some((seg) => seg === '.' || seg === '..')) throw invalidField('a file path must be relative, without "." or ".." segments', `${field}.${i}.path`);
    if (seen.has(f.path)) throw invalidField(`the path "${f.path}" is named twice`, `${field}.${i}.path`);
    seen.add(f.path);
    // A lone surrogate does not survive a UTF-8 round trip; NUL marks binary content.
    if (Buffer.from(f.content, 'utf8').toString('utf8') !== f.content || f.content.includes('\u0000')) throw invalidField('a file must be UTF-8 text', `${field}.${i}.content`);
    if (Buffer.byteLength(f.content, 'utf8') > MAX_SKILL_FILE_BYTES) throw invalidField(`a file is at most ${MAX_SKILL_FILE_BYTES} bytes`, `${field}.${i}.content`);
  }
  return [...list].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((f) => ({ path: f.path, content: f.content }));
}

/** The skill library. */
export class SkillLibrary {
  private readonly now: () => string;

  constructor(private readonly store: SkillStore, now?: () => string) {
    this.now = now ?? (() => new Date().toISOString());
  }

  /** The skills the caller sees: the tenant's and the caller's own, by name. */
  async list(who: CatalogCaller): Promise<SkillView[]> {
    return (await this.store.visible(who.tenantId, who.userId)).map((r) => view(who, r));
  }

  /** One skill. @throws DomainError `skill_not_found`. */
  async get(who: CatalogCaller, id: string): Promise<SkillView> {
    return view(who, await this.visibleRow(who, id));
  }

  /** Versions of a skill, newest first. @throws DomainError `skill_not_found`. */
  async versions(who: CatalogCaller, id: string): Promise<SkillVersion[]> {
    await this.visibleRow(who, id);
    return this.store.versions(who.tenantId, id);
  }

  /**
   * Create a skill at version 1 (`scope` default `personal`).
   * @throws DomainError `forbidden` (tenant scope without the admin role), `skill_name_taken` (409).
   */
  async create(who: CatalogCaller, body: SkillCreate): Promise<SkillView> {
    const scope: CatalogScope = body.scope ?? 'personal';
    if (scope === 'tenant' && !who.isAdmin) throw runtimeError('forbidden', 'only admins create tenant skills');
    const files = checkSkillFiles(body.files);
    const at = this.now();
    const row: SkillRow = {
      id: newId(), tenant_id: who.tenantId, owner_id: who.userId, scope, name: body.name, description: body.description, content: body.content,
      version: 1, sha256: skillSha256({ ...body, files }), files, created_at: at, updated_at: at,
    };
    return this.save(who, row);
  }

  /**
   * Change a skill; a change makes the next version (an update that changes nothing answers the skill as it is).
   * @throws DomainError `skill_not_found`, `forbidden` (a tenant skill without the admin role), `skill_name_taken`.
   */
  async update(who: CatalogCaller, id: string, body: SkillUpdate): Promise<SkillView> {
    const row = await this.editableRow(who, id);
    const files = body.files !== undefined ? checkSkillFiles(body.files) : row.files;
    const next = { name: body.name ?? row.name, description: body.description ?? row.description, content: body.content ?? row.content, files };
    const sha256 = skillSha256(next);
    if (sha256 === row.sha256) return view(who, row);
    return this.save(who, { ...row, ...next, sha256, version: row.version + 1, updated_at: this.now() });
  }

  /** Delete a skill and its versions. @throws DomainError `skill_not_found`, `forbidden`. */
  async delete(who: CatalogCaller, id: string): Promise<void> {
    await this.editableRow(who, id);
    await this.store.delete(who.tenantId, id);
  }

  /** The skills a turn of `userId` is offered: the caller's own, then tenant ones whose name the caller's do not shadow, by name. */
  async offered(tenantId: string, userId: string): Promise<SkillRow[]> {
    const rows = await this.store.visible(tenantId, userId);
    const own = new Set(rows.filter((r) => r.scope === 'personal').map((r) => r.name));
    return rows.filter((r) => r.scope === 'personal' || !own.has(r.name)).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The skill `name` as a turn of `userId` loads it (personal first), or undefined. */
  async byName(tenantId: string, userId: string, name: string): Promise<SkillRow | undefined> {
    return (await this.offered(tenantId, userId)).find((r) => r.name === name);
  }

  private async save(who: CatalogCaller, row: SkillRow): Promise<SkillView> {
    if (!(await this.store.save(row, who.userId))) throw runtimeError('skill_name_taken', `a ${row.scope} skill named "${row.name}" exists`);
    return view(who, row);
  }

  private async visibleRow(who: CatalogCaller, id: string): Promise<SkillRow> {
    const row = await this.store.get(who.tenantId, id);
    if (!row || (row.scope === 'personal' && row.owner_id !== who.userId)) throw runtimeError('skill_not_found', `no skill ${id}`);
    return row;
  }

  private async editableRow(who: CatalogCaller, id: string): Promise<SkillRow> {
    const row = await this.visibleRow(who, id);
    if (row.scope === 'tenant' ? !who.isAdmin : row.owner_id !== who.userId) throw runtimeError('forbidden', 'only admins edit tenant skills');
    return row;
  }
}

function view(who: CatalogCaller, r: SkillRow): SkillView {
  return {
    id: r.id, name: r.name, description: r.description, content: r.content, scope: r.scope, owner_id: r.owner_id, version: r.version, sha256: r.sha256,
    files: r.files.map((f) => ({ path: f.path, content: f.content })),
    editable: r.scope === 'tenant' ? who.isAdmin : r.owner_id === who.userId, created_at: r.created_at, updated_at: r.updated_at,
  };
}
