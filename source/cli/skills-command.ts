import { Command } from 'commander';
import { listSkills } from '../agent/skills.js';
import { homeOf } from './context.js';
import { print, say } from './output.js';

export function skillsCommand(): Command {
  const skills = new Command('skills').description('Skills under $SWITCHBOARD_HOME/skills/<name>/SKILL.md');
  skills
    .command('list')
    .description('List installed skills')
    .option('--json', 'machine-readable output')
    .action((options: { json?: boolean }, command: Command) => {
      const home = homeOf(command);
      const found = listSkills(home.skillsDir);
      if (options.json) return print(JSON.stringify(found.map((entry) => (entry.ok ? { folder: entry.folder, ...entry.skill } : { folder: entry.folder, error: entry.reason })), undefined, 2));
      if (found.length === 0) return say(`No skills yet. Add one as ${home.skillsDir}/<name>/SKILL.md (front matter: name, description).`);
      for (const entry of found) print(entry.ok ? `${entry.folder}  ${entry.skill.description}` : `${entry.folder}  (unreadable: ${entry.reason})`);
    });
  return skills;
}
