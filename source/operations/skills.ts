import type { SkillEntry } from '../agent/skills.js';
import type { OperationsCore } from './core.js';
import { optionalTextList, type Implementation, type Params } from './params.js';

export type { SkillEntry };

export interface SkillOperations {
  /** Skills under `$SWITCHBOARD_HOME/skills/<name>/SKILL.md`; those that cannot be used with their reason. */
  list(params: Record<string, never>): Promise<{ dir: string; skills: SkillEntry[] }>;
  /** For each name a run would go on without (missing, unusable, ambiguous), the warning the run logs. */
  check(params: { names: string[] }): Promise<{ warnings: string[] }>;
}

export function createSkillOperations(core: OperationsCore): SkillOperations {
  const skills = () => import('../agent/skills.js'); // with yaml: only these operations need it
  return {
    async list(_params: Params) {
      return { dir: core.home.skillsDir, skills: (await skills()).listSkills(core.home.skillsDir) };
    },
    async check(params: Params) {
      const names = optionalTextList(params, 'names', 'skills.check') ?? [];
      return { warnings: (await skills()).loadSkills(core.home.skillsDir, names).warnings };
    },
  } satisfies Implementation<SkillOperations> as unknown as SkillOperations;
}
