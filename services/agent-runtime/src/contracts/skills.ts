/**
 * Skill contracts (spec "Agent runtime surfaces": `/v1/skills`; issue 17 item 2). A skill is a
 * named instruction pack in the open SKILL.md form: front matter with `name` and `description`,
 * then the Markdown body (`content`). The model is offered every visible skill's name and
 * description in the system prompt and loads a body with the built-in tool `load_skill {name}`;
 * a loaded skill is committed in the call's `tool_returned` turn event as
 * `skill_loaded {skill_id, version, sha256}`. Every update keeps a version. A skill may carry up to 16
 * text files (`files: [{path, content}]`), listed by `load_skill {name}` and read with
 * `load_skill {name, file}`.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Timestamp } from './atoms.js';
import { CatalogScopeSchema } from './agents.js';

/** A skill name (the SKILL.md rule: lowercase letters, digits and single hyphens, at most 64). */
export const SKILL_NAME_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
/** Longest skill description, characters (SKILL.md: 1024). */
export const MAX_SKILL_DESCRIPTION = 1024;
/** Longest skill body, characters. */
export const MAX_SKILL_CONTENT = 200_000;
/** The built-in tool that returns a skill's body. */
export const LOAD_SKILL_TOOL = 'load_skill';

/** Most files a skill carries. */
export const MAX_SKILL_FILES = 16;
/** Largest skill file, bytes of UTF-8. */
export const MAX_SKILL_FILE_BYTES = 64 * 1024;
/** A skill file's relative path: segments of letters, digits, `_`, `.`, `-` joined by `/` (`.` and `..` segments are refused by the library). */
export const SKILL_FILE_PATH_PATTERN = '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$';

/** One optional file of a skill (issue 17 item 2): a relative path and its UTF-8 text. */
export const SkillFileSchema = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 256, pattern: SKILL_FILE_PATH_PATTERN }),
  content: Type.String({ maxLength: MAX_SKILL_FILE_BYTES }),
}, { additionalProperties: false });
/** One file of a skill. */
export type SkillFile = Static<typeof SkillFileSchema>;
const SkillFiles = Type.Array(SkillFileSchema, { maxItems: MAX_SKILL_FILES });

const SkillName = Type.String({ minLength: 1, maxLength: 64, pattern: SKILL_NAME_PATTERN });
const Description = Type.String({ minLength: 1, maxLength: MAX_SKILL_DESCRIPTION });
const Content = Type.String({ maxLength: MAX_SKILL_CONTENT });

/** `POST /v1/skills` body (`tenant` scope for admins only; default `personal`). */
export const SkillCreateSchema = Type.Object({
  name: SkillName,
  description: Description,
  content: Content,
  scope: Type.Optional(CatalogScopeSchema),
  /** Optional files (paths unique; 400 `invalid_request` for `.`/`..` segments, over 64 KiB, or text that is not UTF-8). */
  files: Type.Optional(SkillFiles),
}, { additionalProperties: false });
/** A skill create. */
export type SkillCreate = Static<typeof SkillCreateSchema>;

/** `PUT /v1/skills/{id}` body: the fields to change (a change makes a new version). */
export const SkillUpdateSchema = Type.Object({
  name: Type.Optional(SkillName),
  description: Type.Optional(Description),
  content: Type.Optional(Content),
  /** The skill's files, replacing the ones it had (`[]` removes them). */
  files: Type.Optional(SkillFiles),
}, { additionalProperties: false, minProperties: 1 });
/** A skill update. */
export type SkillUpdate = Static<typeof SkillUpdateSchema>;

/**
 * A skill as answers carry it; `sha256` is the lowercase hex digest of its SKILL.md form
 * (`skillMarkdown`) for a skill without files (exactly as before files existed), and of that form
 * followed by its file manifest (`skillFileManifest`) for one with files.
 */
export const SkillViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  content: Type.String(),
  scope: CatalogScopeSchema,
  owner_id: Type.String(),
  version: Type.Integer(),
  sha256: Type.String(),
  /** The skill's files by path (`[]` when none). */
  files: SkillFiles,
  editable: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** A skill. */
export type SkillView = Static<typeof SkillViewSchema>;

/** `GET /v1/skills`: the tenant's skills and the caller's own, by name. */
export const SkillListSchema = Type.Object({ items: Type.Array(SkillViewSchema) });

/** One version of a skill. */
export const SkillVersionSchema = Type.Object({
  version: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  content: Type.String(),
  sha256: Type.String(),
  files: SkillFiles,
  created_by: Type.String(),
  created_at: Timestamp,
});
/** One version of a skill. */
export type SkillVersion = Static<typeof SkillVersionSchema>;

/** `GET /v1/skills/{id}/versions`: newest first. */
export const SkillVersionListSchema = Type.Object({ items: Type.Array(SkillVersionSchema) });

/**
 * The manifest a skill with files appends to its SKILL.md form before digesting (issue 17 item 2):
 * per file in path order (code-unit order), `\n--- file <path> sha256:<lowercase hex SHA-256 of its
 * UTF-8 content>`; `'\n'` never occurs in a path, so the manifest is unambiguous. `fileSha256`
 * digests one file's content. Empty for no files, so a file-less skill's hash is unchanged.
 */
export function skillFileManifest(files: readonly SkillFile[], fileSha256: (content: string) => string): string {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((f) => `\n--- file ${f.path} sha256:${fileSha256(f.content)}`).join('');
}

/**
 * The SKILL.md form of a skill, what `sha256` digests: `---\nname: <name>\ndescription: <JSON
 * string>\n---\n<content>` (the description as a JSON string, which is a YAML double-quoted scalar).
 */
export function skillMarkdown(s: { name: string; description: string; content: string }): string {
  return `---\nname: ${s.name}\ndescription: ${JSON.stringify(s.description)}\n---\n${s.content}`;
}
