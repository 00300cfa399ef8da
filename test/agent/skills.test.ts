import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSkills, loadSkills } from '../../source/agent/skills.js';
import { tempHome } from '../helpers/temp-home.js';

function writeSkill(dir: string, name: string, text: string): void {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  fs.writeFileSync(path.join(dir, name, 'SKILL.md'), text);
}

describe('skills', () => {
  const dir = () => {
    const skillsDir = tempHome().skillsDir;
    writeSkill(skillsDir, 'review', '---\nname: Code review\ndescription: Review a pull request\n---\n# How to review\nRead the diff.\n');
    writeSkill(skillsDir, 'plain', 'No front matter here.');
    writeSkill(skillsDir, 'broken', '---\nname: [unclosed\n---\nbody');
    return skillsDir;
  };

  it('loads front matter and body, in the given order, warning about missing ones', () => {
    const { skills, warnings } = loadSkills(dir(), ['missing', 'plain', 'review']);
    expect(skills.map((skill) => [skill.name, skill.description, skill.body])).toEqual([
      ['plain', '', 'No front matter here.'],
      ['Code review', 'Review a pull request', '# How to review\nRead the diff.'],
    ]);
    expect(warnings).toEqual([expect.stringMatching(/^skill "missing" not found \(.*missing\/SKILL\.md\)$/)]);
  });

  it('firstOnly loads only the first skill found (webhook routes)', () => {
    const { skills, warnings } = loadSkills(dir(), ['missing', 'review', 'plain'], true);
    expect(skills.map((skill) => skill.name)).toEqual(['Code review']);
    expect(warnings).toHaveLength(1);
  });

  it('refuses names that could leave the skills folder and reports bad YAML', () => {
    expect(loadSkills(dir(), ['../etc']).warnings).toEqual(['skill name "../etc" is not valid']);
    expect(loadSkills(dir(), ['broken']).warnings[0]).toContain('front matter is not valid YAML');
  });

  it('lists every skill folder', () => {
    expect(listSkills(dir()).map((entry) => [entry.folder, entry.ok])).toEqual([['broken', false], ['plain', true], ['review', true]]);
  });
});
