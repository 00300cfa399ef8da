import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface Skill {
  name: string;
  description: string;
  body: string;
  file: string;
}

export type SkillLoad = { ok: true; skill: Skill } | { ok: false; reason: string };

const validName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Reads `<skillsDir>/<name>/SKILL.md`: YAML front matter (`name`, `description`), then Markdown. */
export function loadSkill(skillsDir: string, name: string): SkillLoad {
  if (!validName.test(name)) return { ok: false, reason: `skill name "${name}" is not valid` };
  const file = path.join(skillsDir, name, 'SKILL.md');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { ok: false, reason: `skill "${name}" not found (${file})` };
  }
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  let meta: { name?: unknown; description?: unknown } = {};
  if (match) {
    try {
      meta = (parseYaml(match[1]!) ?? {}) as typeof meta;
    } catch (error) {
      return { ok: false, reason: `skill "${name}": front matter is not valid YAML (${(error as Error).message})` };
    }
  }
  return {
    ok: true,
    skill: {
      name: typeof meta.name === 'string' ? meta.name : name,
      description: typeof meta.description === 'string' ? meta.description : '',
      body: (match ? match[2]! : text).trim(),
      file,
    },
  };
}

/**
 * Resolves an ordered list. `firstOnly` stops at the first skill found (webhook routes, spec 2.7).
 * Missing skills are warnings for the caller, never a reason to stop the run.
 */
export function loadSkills(skillsDir: string, names: readonly string[], firstOnly = false): { skills: Skill[]; warnings: string[] } {
  const skills: Skill[] = [];
  const warnings: string[] = [];
  for (const name of names) {
    const loaded = loadSkill(skillsDir, name);
    if (!loaded.ok) {
      warnings.push(loaded.reason);
      continue;
    }
    skills.push(loaded.skill);
    if (firstOnly) break;
  }
  return { skills, warnings };
}

/** Every skill folder under the home, for `switchboard skills list`. */
export function listSkills(skillsDir: string): Array<SkillLoad & { folder: string }> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(skillsDir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((entry) => entry.isDirectory()).sort((a, b) => a.name.localeCompare(b.name)).map((entry) => ({ folder: entry.name, ...loadSkill(skillsDir, entry.name) }));
}
