/**
 * Skills in a chat turn (issue 17 item 2): the prompt part that offers the model the skills' names
 * and descriptions, and the built-in tool `load_skill {name}` that returns a skill's body. The
 * tool's answer commits `skill_loaded {skill_id, version, sha256}` in the call's `tool_returned`
 * turn event (`ToolOutput.commit`), so the sealed receipt names the skill version by hash.
 */
import { LOAD_SKILL_TOOL, type AgentTool, type ToolOutput } from '../../contracts.js';
import type { SkillRow } from './ports.js';

/** Where a turn's skills come from (the `SkillLibrary`). */
export interface SkillSource {
  offered(tenantId: string, userId: string): SkillRow[];
  byName(tenantId: string, userId: string, name: string): SkillRow | undefined;
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

/** The `load_skill` tool over `source` (policy `auto`): the body of a skill the caller sees, by name. */
export function loadSkillTool(source: SkillSource): AgentTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: LOAD_SKILL_TOOL,
        description: 'Load the full instructions of one of the available skills, by its name.',
        parameters: { type: 'object', properties: { name: { type: 'string', description: 'the skill name' } }, required: ['name'], additionalProperties: false },
      },
    },
    policy: 'auto',
    execute(args, ctx): ToolOutput {
      const name = typeof args.name === 'string' ? args.name.trim() : '';
      const skill = name ? source.byName(ctx.tenantId, ctx.userId, name) : undefined;
      if (!skill) return { isError: true, content: JSON.stringify({ error: `no skill named "${name}"`, code: 'skill_not_found' }) };
      return {
        content: `# Skill: ${skill.name} (version ${skill.version})\n\n${skill.content}`,
        commit: { skill_loaded: { skill_id: skill.id, name: skill.name, version: skill.version, sha256: skill.sha256 } },
      };
    },
  };
}
