import { Command } from './commander.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';

export function skillsCommand(): Command {
  const skills = new Command('skills').description('Skills under $SWITCHBOARD_HOME/skills/<name>/SKILL.md');
  skills
    .command('list')
    .description('List installed skills')
    .option('--json', 'machine-readable output')
    .action((options: { json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const { dir, skills: found } = await operations.skills.list({});
      if (options.json) return print(JSON.stringify(found.map((entry) => (entry.ok ? { folder: entry.folder, ...entry.skill } : { folder: entry.folder, error: entry.reason })), undefined, 2));
      if (found.length === 0) return say(`No skills yet. Add one as ${dir}/<name>/SKILL.md (front matter: name, description).`);
      for (const entry of found) print(entry.ok ? `${entry.folder}  ${entry.skill.description}` : `${entry.folder}  (unreadable: ${entry.reason})`);
    }));
  return skills;
}
