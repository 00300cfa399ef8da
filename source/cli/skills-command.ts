import { Command } from './commander.js';
import type { SkillEntry } from '../operations/skills.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';

export function skillsCommand(): Command {
  const skills = new Command('skills').description('Skills under $SWITCHBOARD_HOME/skills/<name>/SKILL.md');
  skills
    .command('list')
    .description('List installed skills; those that cannot be used are marked with the problem (exit code 1)')
    .option('--json', 'machine-readable output')
    .action((options: { json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const { dir, skills: found } = await operations.skills.list({});
      const broken = found.filter((entry) => !entry.ok);
      if (broken.length > 0) process.exitCode = 1;
      if (options.json) return print(JSON.stringify(found.map(skillJson), undefined, 2));
      if (found.length === 0) return say(`No skills yet. Add one as ${dir}/<name>/SKILL.md (front matter: name, description).`);
      for (const entry of found) print(skillLine(entry));
      if (broken.length > 0) say(`${broken.length} skill(s) cannot be used: runs go on without them and jobs refuse them; each line above says why.`);
    }));
  return skills;
}

/** `folder  description`; the front matter's name when it differs (`--skill` takes either); or the problem. */
function skillLine(entry: SkillEntry): string {
  if (!entry.ok) return `${entry.folder}  (cannot be used: ${entry.problem})`;
  const { name, description } = entry.skill;
  return `${entry.folder}${name === entry.folder ? '' : ` (name: ${name})`}  ${description || '(no description)'}`;
}

function skillJson(entry: SkillEntry) {
  return entry.ok
    ? { folder: entry.folder, usable: true, name: entry.skill.name, description: entry.skill.description, file: entry.file, body: entry.skill.body }
    : { folder: entry.folder, usable: false, problem: entry.problem, file: entry.file };
}
