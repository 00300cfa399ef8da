import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';

const running: RunningCli[] = [];
afterEach(() => stopClis(running));

function writeSkill(home: { skillsDir: string }, folder: string, text: string): void {
  fs.mkdirSync(path.join(home.skillsDir, folder), { recursive: true });
  fs.writeFileSync(path.join(home.skillsDir, folder, 'SKILL.md'), text);
}

/** Three usable skills (one named apart from its folder, one whose name is another's folder) and two broken ones. */
function skillsHome() {
  const home = preparedHome();
  writeSkill(home, 'review', '---\nname: code-review\ndescription: Review a pull request\n---\nRead the diff.');
  writeSkill(home, 'tone', '---\ndescription: Be brief\n---\nAnswer in one line.');
  writeSkill(home, 'impostor', '---\nname: tone\ndescription: Not the tone folder\n---\nShout.');
  writeSkill(home, 'unclosed', '---\nname: unclosed\ndescription: oops\n\nBody that would carry YAML.');
  writeSkill(home, 'badyaml', '---\nname: badyaml\ndescription the colon is missing\n---\nBody.');
  return home;
}

describe('switchboard skills and --skill', () => {
  it('skills list marks a skill whose front matter is broken, with the line; --json carries the problem; exit 1', async () => {
    const home = skillsHome();
    const listed = await runCli(['skills', 'list', '--home', home.root]);
    expect(listed.code).toBe(1);
    expect(listed.stdout).toBe([
      'badyaml  (cannot be used: front matter is not valid YAML on line 3: Implicit map keys need to be followed by map values)',
      'impostor (name: tone)  Not the tone folder',
      'review (name: code-review)  Review a pull request',
      'tone  Be brief',
      'unclosed  (cannot be used: front matter opened by "---" on line 1 is never closed: add a line "---" after it)',
      '',
    ].join('\n'));
    expect(listed.stderr).toContain('2 skill(s) cannot be used: runs go on without them and jobs refuse them; each line above says why.');

    const json = JSON.parse((await runCli(['skills', 'list', '--json', '--home', home.root])).stdout) as Array<Record<string, unknown>>;
    expect(json.find((entry) => entry.folder === 'unclosed')).toEqual({
      folder: 'unclosed', usable: false, problem: 'front matter opened by "---" on line 1 is never closed: add a line "---" after it', file: path.join(home.skillsDir, 'unclosed', 'SKILL.md'),
    });
    expect(json.find((entry) => entry.folder === 'review')).toMatchObject({ usable: true, name: 'code-review', description: 'Review a pull request', body: 'Read the diff.' });

    fs.rmSync(path.join(home.skillsDir, 'unclosed'), { recursive: true });
    fs.rmSync(path.join(home.skillsDir, 'badyaml'), { recursive: true });
    expect((await runCli(['skills', 'list', '--home', home.root])).code).toBe(0);
  });

  it('run --skill takes the front matter name too; the folder wins; a broken skill is named on stderr and left out', async () => {
    const home = skillsHome();
    const ran = await runCli(['run', 'Say hi', '--skill', 'code-review', '--skill', 'tone', '--skill', 'unclosed', '--home', home.root]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('## Skill: code-review - Review a pull request\n\nRead the diff.');
    expect(ran.stdout).toContain('## Skill: tone - Be brief\n\nAnswer in one line.');
    expect(ran.stdout).not.toContain('Shout.');
    expect(ran.stdout).not.toContain('would carry YAML');
    expect(ran.stderr).toContain(`  ! skill "unclosed": front matter opened by "---" on line 1 is never closed: add a line "---" after it (${home.skillsDir}/unclosed/SKILL.md); the run goes on without it`);
    expect(ran.stderr).not.toContain('code-review"');
  });

  it('the gateway logs one warning per broken SKILL.md at start, naming the file', async () => {
    const home = skillsHome();
    const gateway = startCli(['gateway', '--home', home.root]);
    running.push(gateway);
    await gateway.waitFor('Control channel listening', 30_000);
    // The file gets the same lines as the terminal, in order: once it has the later one, it has the warnings.
    const log = await waitUntil(() => {
      const text = fs.existsSync(home.gatewayLog) ? fs.readFileSync(home.gatewayLog, 'utf8') : '';
      return text.includes('Control channel listening') ? text : undefined;
    }, 10_000, 'gateway.log up to the control channel');
    const warned = log.split('\n').filter((line) => line.includes('cannot be used (runs naming it go on without it)'));
    expect(warned).toHaveLength(2);
    expect(log).toContain(`Skill unclosed cannot be used (runs naming it go on without it): front matter opened by \\"---\\" on line 1 is never closed: add a line \\"---\\" after it (${home.skillsDir}/unclosed/SKILL.md)`);
    expect(log).toContain(`Skill badyaml cannot be used (runs naming it go on without it): front matter is not valid YAML on line 3`);
  });
});
