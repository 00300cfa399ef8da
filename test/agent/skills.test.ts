import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSkillFile } from '../../source/agent/skill-file.js';
import { checkSkillNames, findSkill, listSkills, loadSkills, reportSkillProblems } from '../../source/agent/skills.js';
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

  it('refuses names that could leave the skills folder and reports bad YAML with its line in the file', () => {
    const skillsDir = dir();
    expect(loadSkills(skillsDir, ['../etc']).warnings).toEqual(['skill name "../etc" is not valid']);
    expect(loadSkills(skillsDir, ['broken']).warnings).toEqual([`skill "broken": front matter is not valid YAML on line 2: Flow sequence in block collection must be sufficiently indented and end with a ] (${skillsDir}/broken/SKILL.md)`]);
  });

  it('lists every skill folder but hidden ones, each usable or with its problem', () => {
    const skillsDir = dir();
    fs.mkdirSync(path.join(skillsDir, '.git'));
    fs.mkdirSync(path.join(skillsDir, 'empty'));
    expect(listSkills(skillsDir).map((entry) => [entry.folder, entry.ok ? entry.skill.name : entry.problem])).toEqual([
      ['broken', expect.stringContaining('front matter is not valid YAML on line 2')],
      ['empty', 'no SKILL.md in the folder'],
      ['plain', 'plain'],
      ['review', 'Code review'],
    ]);
  });

  it('finds a skill by its folder or by its front matter name; the folder wins, and a name two skills share names neither', () => {
    const skillsDir = dir();
    writeSkill(skillsDir, 'tone', '---\nname: plain\ndescription: Be brief\n---\nOne line.');
    writeSkill(skillsDir, 'short', '---\nname: brief\n---\nShort.');
    writeSkill(skillsDir, 'terse', '---\nname: brief\n---\nTerse.');
    expect(findSkill(skillsDir, 'Code review')).toMatchObject({ ok: true, skill: { folder: 'review', name: 'Code review' } });
    expect(findSkill(skillsDir, 'plain')).toMatchObject({ ok: true, skill: { folder: 'plain', body: 'No front matter here.' } });
    expect(findSkill(skillsDir, 'brief')).toEqual({ ok: false, reason: 'skill "brief" is the front matter name of short and terse: give the folder name instead' });
    // Named twice (folder and name): in the prompt once.
    expect(loadSkills(skillsDir, ['review', 'Code review']).skills.map((skill) => skill.folder)).toEqual(['review']);
  });

  it('for jobs: names the first skill that is missing or unusable, with the usable ones listed', () => {
    const skillsDir = dir();
    expect(checkSkillNames(skillsDir, ['review', 'Code review', 'plain'])).toMatchObject({ ok: true });
    expect(checkSkillNames(skillsDir, ['review', 'nosuch'])).toEqual({
      ok: false, reason: `skill "nosuch" not found in ${skillsDir}; available: plain, review (name "Code review") (switchboard skills list)`,
    });
    expect(checkSkillNames(skillsDir, ['broken'])).toMatchObject({ ok: false, reason: expect.stringMatching(/^skill "broken": front matter is not valid YAML on line 2: .*broken\/SKILL\.md\)$/) });
    const none = tempHome().skillsDir;
    expect(checkSkillNames(none, ['nosuch'])).toEqual({ ok: false, reason: `skill "nosuch" not found: no skill is installed in ${none} (add one as <folder>/SKILL.md there)` });
  });

  it('reports one warning per skill that cannot be used, naming its file', () => {
    const skillsDir = dir();
    const warnings: string[] = [];
    reportSkillProblems(skillsDir, (message) => warnings.push(message));
    expect(warnings).toEqual([expect.stringMatching(/^Skill broken cannot be used \(runs naming it go on without it\): front matter is not valid YAML on line 2: .* \(.*\/skills\/broken\/SKILL\.md\)$/)]);
  });
});

describe('SKILL.md front matter', () => {
  it('reads name and description; other keys are allowed; no front matter means all body', () => {
    expect(parseSkillFile('---\nname: a\ndescription: >\n  long\n  text\nlicense: MIT\n---\n\nBody\n')).toEqual({ ok: true, value: { name: 'a', description: 'long text', body: 'Body' } });
    expect(parseSkillFile('\uFEFF---\r\nname: a\r\n---\r\nBody')).toEqual({ ok: true, value: { name: 'a', body: 'Body' } });
    expect(parseSkillFile('---\n---\nBody')).toEqual({ ok: true, value: { body: 'Body' } });
    expect(parseSkillFile('# Title\n---\nname: x\n---')).toEqual({ ok: true, value: { body: '# Title\n---\nname: x\n---' } });
  });

  it('a broken front matter is a reason naming what and where', () => {
    expect(parseSkillFile('---\nname: a\ndescription: b\n\nBody')).toEqual({ ok: false, reason: 'front matter opened by "---" on line 1 is never closed: add a line "---" after it' });
    expect(parseSkillFile('---\nname: a\ndescription b\n---\nBody')).toEqual({ ok: false, reason: 'front matter is not valid YAML on line 3: Implicit map keys need to be followed by map values' });
    expect(parseSkillFile('---\n- a\n---\nBody')).toEqual({ ok: false, reason: 'front matter is not "key: value" lines (name, description) but a list' });
    expect(parseSkillFile('---\nname a\n---\nBody')).toEqual({ ok: false, reason: 'front matter is not "key: value" lines (name, description) but the string "name a"' });
    expect(parseSkillFile('---\nname: 42\n---\nBody')).toEqual({ ok: false, reason: 'front matter "name" must be text, not 42 (leave the line out to use the default)' });
    expect(parseSkillFile('---\ndescription:\n---\nBody')).toEqual({ ok: false, reason: 'front matter "description" must be text, not empty (leave the line out to use the default)' });
  });
});
