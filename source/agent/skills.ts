import fs from 'node:fs';
import path from 'node:path';
import { parseSkillFile } from './skill-file.js';

export interface Skill {
  /** Its folder under the skills directory. */
  folder: string;
  /** The front matter's `name`, else the folder. */
  name: string;
  description: string;
  body: string;
  file: string;
}

/** `missing`: no such skill; otherwise it is there but cannot be used. */
export type SkillLoad = { ok: true; skill: Skill } | { ok: false; reason: string; missing?: true };

/** One folder under the skills directory, usable or with its problem (`missing`: it has no SKILL.md). */
export type SkillEntry = { folder: string; file: string } & ({ ok: true; skill: Skill } | { ok: false; problem: string; missing?: true });

const validFolder = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Reads `<skillsDir>/<folder>/SKILL.md`: YAML front matter (`name`, `description`), then Markdown.
 * Decision: a skill whose front matter is broken (parseSkillFile) cannot be used. Its name,
 * description and where its body starts are unknown, and an unclosed front matter would put YAML
 * into the system prompt; so runs skip it with a warning, jobs refuse it, `skills list` marks it.
 */
export function readSkill(skillsDir: string, folder: string): SkillEntry {
  const file = path.join(skillsDir, folder, 'SKILL.md');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { folder, file, ok: false, missing: true, problem: 'no SKILL.md in the folder' };
    return { folder, file, ok: false, problem: `SKILL.md cannot be read (${(error as Error).message})` };
  }
  const parsed = parseSkillFile(text);
  if (!parsed.ok) return { folder, file, ok: false, problem: parsed.reason };
  const { name, description, body } = parsed.value;
  return { folder, file, ok: true, skill: { folder, name: name ?? folder, description: description ?? '', body, file } };
}

/**
 * The skill `name` means: the folder of that name when it has a SKILL.md (usable or not: the folder
 * wins), else the one usable skill whose front matter has that `name`.
 */
export function findSkill(skillsDir: string, name: string): SkillLoad {
  const byFolder = validFolder.test(name) ? readSkill(skillsDir, name) : undefined;
  if (byFolder && (byFolder.ok || !byFolder.missing)) return loaded(byFolder, name);
  const named = listSkills(skillsDir).filter((entry) => entry.ok && entry.skill.name === name);
  if (named.length === 1) return loaded(named[0]!, name);
  if (named.length > 1) return { ok: false, reason: `skill "${name}" is the front matter name of ${named.map((entry) => entry.folder).join(' and ')}: give the folder name instead` };
  return byFolder ? loaded(byFolder, name) : { ok: false, missing: true, reason: `skill name "${name}" is not valid` };
}

function loaded(entry: SkillEntry, name: string): SkillLoad {
  if (entry.ok) return { ok: true, skill: entry.skill };
  if (entry.missing) return { ok: false, missing: true, reason: `skill "${name}" not found (${entry.file})` };
  return { ok: false, reason: `skill "${name}": ${entry.problem} (${entry.file})` };
}

/**
 * Resolves an ordered list. `firstOnly` stops at the first skill found (webhook routes, spec 2.7).
 * Skills that are missing or cannot be used are warnings for the caller, never a reason to stop the run.
 */
export function loadSkills(skillsDir: string, names: readonly string[], firstOnly = false): { skills: Skill[]; warnings: string[] } {
  const skills: Skill[] = [];
  const warnings: string[] = [];
  for (const name of names) {
    const loaded = findSkill(skillsDir, name);
    if (!loaded.ok) {
      warnings.push(loaded.reason);
      continue;
    }
    // A folder and its front matter name both given: the skill is in the prompt once.
    if (!skills.some((skill) => skill.folder === loaded.skill.folder)) skills.push(loaded.skill);
    if (firstOnly) break;
  }
  return { skills, warnings };
}

/**
 * For jobs, which name their skills once and run them for months: every name must be a usable skill
 * now. The reason names the first that is not and lists the usable ones.
 */
export function checkSkillNames(skillsDir: string, names: readonly string[]): { ok: true; value: Skill[] } | { ok: false; reason: string } {
  const skills: Skill[] = [];
  for (const name of names) {
    const found = findSkill(skillsDir, name);
    if (found.ok) {
      skills.push(found.skill);
      continue;
    }
    if (!found.missing) return found;
    const usable = listSkills(skillsDir).flatMap((entry) => (entry.ok ? [entry.skill.name === entry.folder ? entry.folder : `${entry.folder} (name "${entry.skill.name}")`] : []));
    return {
      ok: false,
      reason: usable.length > 0
        ? `skill "${name}" not found in ${skillsDir}; available: ${usable.join(', ')} (switchboard skills list)`
        : `skill "${name}" not found: no skill is installed in ${skillsDir} (add one as <folder>/SKILL.md there)`,
    };
  }
  return { ok: true, value: skills };
}

/** Every folder under the skills directory but hidden ones (`.git`), in name order, for `switchboard skills list`. */
export function listSkills(skillsDir: string): SkillEntry[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(skillsDir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name).sort((a, b) => a.localeCompare(b)).map((folder) => readSkill(skillsDir, folder));
}

/** At gateway start: one warning per skill folder that runs would skip, naming its file. */
export function reportSkillProblems(skillsDir: string, warn: (message: string) => void): void {
  for (const entry of listSkills(skillsDir)) {
    if (!entry.ok) warn(`Skill ${entry.folder} cannot be used (runs naming it go on without it): ${entry.problem} (${entry.file})`);
  }
}
