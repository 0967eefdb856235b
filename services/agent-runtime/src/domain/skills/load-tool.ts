/**
 * Skills in a chat turn (issue 17 item 2): the prompt part that offers the model the skills' names
 * and descriptions, and the built-in tool `load_skill {name, file?}` that returns a skill's body (and
 * the paths of its files) or one of its files. The
 * tool's answer commits `skill_loaded {skill_id, version, sha256}` in the call's `tool_returned`
 * turn event (`ToolOutput.commit`), so the sealed receipt names the skill version by hash.
 */
import { LOAD_SKILL_TOOL, type AgentTool, type ToolOutput } from '../../contracts.js';
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { SkillRow } from './ports.js';

/** Where a turn's skills come from (the `SkillLibrary`). */
export interface SkillSource {
  offered(tenantId: string, userId: string): Awaitable<SkillRow[]>;
  byName(tenantId: string, userId: string, name: string): Awaitable<SkillRow | undefined>;
}

/**
 * The system prompt part offering `skills` (names and descriptions only; bodies load on demand),
 * or null when there are none.
 */
export function skillsPromptPart(skills: readonly Pick<SkillRow, 'name' | 'description'>[]): string | null {
  if (skills.length === 0) return null;
  const lines = skills.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ').trim()}`);
  return `Skills are available. When one fits the task, call ${LOAD_SKILL_TOOL} with its name to read its instructions before you answer.\n${lines.join('\n')}`;
}

/**
 * The `load_skill` tool over `source` (policy `auto`), for a skill the caller sees, by name: without
 * `file`, its body followed by the paths of its files (if any); with `file`, that file's content
 * (`skill_file_not_found` when it has none of that path). Either commits the skill's id, version
 * and hash; a file also its path.
 */
export function loadSkillTool(source: SkillSource): AgentTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: LOAD_SKILL_TOOL,
        description: 'Load the full instructions of one of the available skills, by its name; with file, one of the files the skill lists.',
        parameters: {
          type: 'object', required: ['name'], additionalProperties: false,
          properties: { name: { type: 'string', description: 'the skill name' }, file: { type: 'string', description: 'a file path the skill lists (optional)' } },
        },
      },
    },
    policy: 'auto',
    async execute(args, ctx): Promise<ToolOutput> {
      const name = typeof args.name === 'string' ? args.name.trim() : '';
      const skill = name ? await source.byName(ctx.tenantId, ctx.userId, name) : undefined;
      if (!skill) return { isError: true, content: JSON.stringify({ error: `no skill named "${name}"`, code: 'skill_not_found' }) };
      const loaded = { skill_id: skill.id, name: skill.name, version: skill.version, sha256: skill.sha256 };
      const files = skill.files ?? [];
      if (typeof args.file === 'string' && args.file.trim()) {
        const path = args.file.trim().replace(/^\.\//, '');
        const file = files.find((f) => f.path === path);
        if (!file) return { isError: true, content: JSON.stringify({ error: `the skill "${skill.name}" has no file "${path}"`, code: 'skill_file_not_found', files: files.map((f) => f.path) }) };
        return { content: file.content, commit: { skill_loaded: { ...loaded, file: file.path } } };
      }
      const list = files.length ? `\n\n## Files of this skill (read one with ${LOAD_SKILL_TOOL} {name, file})\n${files.map((f) => `- ${f.path}`).join('\n')}` : '';
      return {
        content: `# Skill: ${skill.name} (version ${skill.version})\n\n${skill.content}${list}`,
        commit: { skill_loaded: loaded },
      };
    },
  };
}
