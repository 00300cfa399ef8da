import type { listSkills } from '../agent/skills.js';
import type { OperationsCore } from './core.js';
import type { Implementation, Params } from './params.js';

export type SkillEntry = ReturnType<typeof listSkills>[number];

export interface SkillOperations {
  /** Skills under `$SWITCHBOARD_HOME/skills/<name>/SKILL.md`, unreadable ones with their reason. */
  list(params: Record<string, never>): Promise<{ dir: string; skills: SkillEntry[] }>;
}

export function createSkillOperations(core: OperationsCore): SkillOperations {
  return {
    async list(_params: Params) {
      const { listSkills } = await import('../agent/skills.js'); // with yaml: only this operation needs it
      return { dir: core.home.skillsDir, skills: listSkills(core.home.skillsDir) };
    },
  } satisfies Implementation<SkillOperations> as unknown as SkillOperations;
}
