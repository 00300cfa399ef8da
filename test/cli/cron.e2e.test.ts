import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { writeScript } from '../helpers/scheduler.js';
import { tempHome } from '../helpers/temp-home.js';

const children: RunningCli[] = [];
afterEach(async () => {
  for (const running of children.splice(0)) {
    if (running.child.exitCode === null) running.child.kill('SIGTERM');
    await running.exited;
  }
});

function writeSkill(home: { skillsDir: string }, folder: string, text: string): void {
  fs.mkdirSync(path.join(home.skillsDir, folder), { recursive: true });
  fs.writeFileSync(path.join(home.skillsDir, folder, 'SKILL.md'), text);
}

async function preparedHome() {
  const home = tempHome();
  expect((await runCli(['config', 'set', 'platforms.webhook.extra.port', '0', '--home', home.root])).code).toBe(0);
  expect((await runCli(['config', 'set', 'timezone', 'Europe/Berlin', '--home', home.root])).code).toBe(0);
  return home;
}

const cli = (home: { root: string }, ...args: string[]) => runCli([...args, '--home', home.root]);

describe('switchboard cron', () => {
  it('creates, lists, shows, pauses, resumes and removes jobs; refuses bad input with reasons', { timeout: 120_000 }, async () => {
    const home = await preparedHome();
    writeSkill(home, 'github', '---\ndescription: Use gh\n---\nUse the gh CLI.');
    writeSkill(home, 'triage', 'Label every issue.');
    const created = await cli(home, 'cron', 'create', '0 9 * * 1-5', 'Summarize open pull requests for the team', '--skill', 'github', '--skills', 'triage,github', '--json');
    expect(created.code).toBe(0);
    const job = JSON.parse(created.stdout);
    expect(job).toMatchObject({ name: 'summarize-open-pull-requests-for-the-team', schedule: '0 9 * * 1-5', deliver: 'local', origin: 'cli', skills: ['github', 'triage'], enabled: true, timezone: 'Europe/Berlin' });
    expect(job.id).toMatch(/^[0-9a-f]{8}$/);
    expect(new Date(job.nextRunAt).toLocaleString('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' })).toBe('09:00');

    const plain = await cli(home, 'cron', 'create', 'every 2h', 'Check the disk', '--name', 'disk');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^Created job disk \([0-9a-f]{8}\)\n {2}schedule {3}every 2h \(Europe\/Berlin\)\n {2}next run {3}\w{3} \d{4}-\d\d-\d\d \d\d:\d\d (CET|CEST|GMT\+\d)\n {2}deliver {4}local -> /);
    expect(plain.stderr).toContain(`No gateway is running on this home: jobs fire while one runs (switchboard gateway --home ${home.root}).`);

    const list = await cli(home, 'cron', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+SCHEDULE\s+NEXT RUN\s+LAST\s+DELIVER$/);
    expect(list.stdout).toContain('disk');
    expect((await cli(home, 'cron', 'show', 'disk')).stdout).toContain('prompt     Check the disk');

    expect((await cli(home, 'cron', 'pause', 'disk')).stdout).toMatch(/^Paused job disk/);
    expect((await cli(home, 'cron', 'list')).stdout).not.toContain('disk');
    expect((await cli(home, 'cron', 'list', '--all')).stdout).toMatch(/disk\s+every 2h\s+paused/);
    const pausedAgain = await cli(home, 'cron', 'pause', 'disk');
    expect(pausedAgain.code).toBe(1);
    expect(pausedAgain.stderr).toContain('is already paused');
    expect((await cli(home, 'cron', 'resume', 'disk')).stdout).toMatch(/^Resumed disk/);
    const edited = await cli(home, 'cron', 'edit', 'disk', '--schedule', '15 7 * * sat', '--deliver', 'log');
    expect(edited.code).toBe(0);
    expect(edited.stdout).toMatch(/^Changed disk \([0-9a-f]{8}\)\n {2}schedule {3}15 7 \* \* sat \(Europe\/Berlin\)\n {2}next run {3}Sat \d{4}-\d\d-\d\d 07:15 /);
    expect(edited.stdout).toContain('deliver    log');

    const bad = await cli(home, 'cron', 'create', '0 9 * * 8', 'x');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('error: Job not created: invalid schedule: "0 9 * * 8": invalid value for day-of-week: 8; accepted forms:');
    const badTarget = await cli(home, 'cron', 'create', 'every 1h', 'x', '--deliver', 'telegram:12345');
    expect(badTarget.code).toBe(1);
    expect(badTarget.stderr).toContain('deliver "telegram:12345": platforms.telegram is not enabled');
    expect((await cli(home, 'cron', 'create', 'every 1h', 'x', '--deliver', 'pigeon')).stderr).toContain('unknown delivery target "pigeon"');
    const badScript = await cli(home, 'cron', 'create', 'every 1h', 'x', '--script', 'missing.sh');
    expect(badScript.stderr).toContain('does not exist');

    const twin = await cli(home, 'cron', 'create', 'every 3h', 'other', '--name', 'Disk');
    expect(twin.code).toBe(1);
    expect(twin.stderr).toMatch(/a job named "disk" already exists \([0-9a-f]{8}\): choose another name/);

    expect((await cli(home, 'cron', 'delete', job.id)).stdout).toContain(`Removed job summarize-open-pull-requests-for-the-team (${job.id})`); // delete and rm are remove's aliases
    expect((await cli(home, 'cron', 'show', job.id)).stderr).toContain(`no job with id or name "${job.id}"`);
  });

  it('refuses a skill that is missing or cannot be used; a job whose skill went away runs without it and says so', { timeout: 120_000 }, async () => {
    const home = await preparedHome();
    writeSkill(home, 'tone', '---\nname: tone\ndescription: Be brief\n---\nAnswer in one line.');
    writeSkill(home, 'review', '---\nname: code-review\n---\nRead the diff.');
    writeSkill(home, 'broken', '---\nname: broken\ndescription: never closed\nRead the diff.');

    const missing = await cli(home, 'cron', 'create', 'every 1h', 'x', '--skills', 'tone,nosuch');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`error: Job not created: skill "nosuch" not found in ${home.skillsDir}; available: review (name "code-review"), tone (switchboard skills list)`);
    const broken = await cli(home, 'cron', 'create', 'every 1h', 'x', '--skill', 'broken');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`error: Job not created: skill "broken": front matter opened by "---" on line 1 is never closed: add a line "---" after it (${home.skillsDir}/broken/SKILL.md)`);
    expect(JSON.parse((await cli(home, 'cron', 'list', '--all', '--json')).stdout)).toEqual([]);

    const created = await cli(home, 'cron', 'create', 'every 1h', 'Say hi', '--name', 'hi', '--skill', 'tone', '--skill', 'code-review', '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).skills).toEqual(['tone', 'code-review']);
    const edited = await cli(home, 'cron', 'edit', 'hi', '--skill', 'nosuch');
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('error: Job hi not changed: skill "nosuch" not found in');

    fs.rmSync(path.join(home.skillsDir, 'tone'), { recursive: true });
    const shown = await cli(home, 'cron', 'show', 'hi');
    expect(shown.stderr).toContain(`warning: skill "tone" not found (${home.skillsDir}/tone/SKILL.md); its runs go on without it`);
    expect(JSON.parse((await cli(home, 'cron', 'show', 'hi', '--json')).stdout).skillWarnings).toEqual([`skill "tone" not found (${home.skillsDir}/tone/SKILL.md)`]);
    // An edit that leaves the skills alone is not blocked by the one that went away.
    expect((await cli(home, 'cron', 'edit', 'hi', '--schedule', 'every 2h')).code).toBe(0);
    const run = await cli(home, 'cron', 'run', 'hi');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`: ok in \\d+ ms - ran without skill\\(s\\): skill "tone" not found \\(${home.skillsDir}/tone/SKILL\\.md\\); delivery to local: ok`));
    expect(run.stdout).toContain('## Skill: code-review\n\nRead the diff.');
    expect(run.stdout).not.toContain('Answer in one line.');
    const [record] = JSON.parse((await cli(home, 'cron', 'runs', 'hi', '--json')).stdout);
    expect(record).toMatchObject({ status: 'ok', reason: `ran without skill(s): skill "tone" not found (${home.skillsDir}/tone/SKILL.md)` });
    expect((await cli(home, 'cron', 'runs', 'hi')).stdout).toContain('ran without skill(s): skill "tone" not found');
  });

  it('previews the next runs in the configured zone, weekday 7 on Sunday', { timeout: 60_000 }, async () => {
    const home = await preparedHome();
    const next = await cli(home, 'cron', 'next', '30 8 * * 7', '--count', '3');
    expect(next.code).toBe(0);
    expect(next.stderr).toContain('Next 3 run(s) of "30 8 * * 7" in Europe/Berlin');
    const lines = next.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^Sun \d{4}-\d\d-\d\d 08:30 (CET|CEST|GMT\+\d)$/);
    const bad = await cli(home, 'cron', 'next', 'every 30 minutes');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('accepted forms');
  });

  it('runs a job in-process when no gateway runs: dry-run model, script output, local delivery file, history', { timeout: 60_000 }, async () => {
    const home = await preparedHome();
    const script = writeScript(path.join(home.root, 'scripts'), 'count.sh', 'echo "7 open tickets"');
    const created = JSON.parse((await cli(home, 'cron', 'create', 'every 1d', 'Report the ticket count', '--script', script, '--name', 'tickets', '--json')).stdout);
    const run = await cli(home, 'cron', 'run', 'tickets');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('No gateway is running');
    expect(run.stderr).toMatch(/Run [0-9a-f-]{36} of tickets \([0-9a-f]{8}\): ok in \d+ ms; delivery to local: ok/);
    expect(run.stdout).toContain('[dry-run]');
    expect(run.stdout).toContain('## Script output\n\n```\n7 open tickets\n```');
    const dir = path.join(home.root, 'cron', 'output', created.id);
    const files = fs.readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.md$/);
    expect(fs.readFileSync(path.join(dir, files[0]!), 'utf8')).toContain('7 open tickets');

    const runs = JSON.parse((await cli(home, 'cron', 'runs', 'tickets', '--json')).stdout);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ jobId: created.id, trigger: 'manual', status: 'ok', deliveryTarget: 'local', deliveryOk: true });
    expect((await cli(home, 'cron', 'runs')).stdout).toMatch(/tickets \([0-9a-f]{8}\)\s+manual\s+.+\s+ok\s+\d+ ms\s+delivered: /);
    expect((await cli(home, 'cron', 'show', 'tickets')).stdout).toMatch(/last run {3}.+: ok/);
  });

  it('a job created from a second process while a gateway runs fires without a restart; cron run goes through the gateway', { timeout: 150_000 }, async () => {
    const home = await preparedHome();
    const gateway = startCli(['gateway', '--home', home.root]);
    children.push(gateway);
    await gateway.waitFor('Scheduler started: 0 enabled job(s), timezone Europe/Berlin', 30_000);

    const created = await cli(home, 'cron', 'create', 'every 1m', 'Say hello from the schedule', '--name', 'live', '--json');
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/Applied by the running gateway \(pid \d+\)\./);
    const job = JSON.parse(created.stdout);

    const manual = await cli(home, 'cron', 'run', 'live');
    expect(manual.code).toBe(0);
    expect(manual.stderr).toMatch(/Running live on the gateway \(pid \d+\)/);
    expect(manual.stderr).toMatch(/: ok in \d+ ms; delivery to local: ok/);
    expect(gateway.output()).toContain(`Job live (${job.id}) started (manual)`);

    await gateway.waitFor(`Job live (${job.id}) started (schedule)`, 90_000);
    await gateway.waitFor(new RegExp(`Job live \\(${job.id}\\) finished: ok[\\s\\S]*Job live \\(${job.id}\\) finished: ok`), 30_000);
    const runs = JSON.parse((await cli(home, 'cron', 'runs', 'live', '--json')).stdout) as Array<{ trigger: string; status: string; scheduledAtMs: number | null; startedAtMs: number }>;
    const scheduled = runs.find((run) => run.trigger === 'schedule')!;
    expect(scheduled.status).toBe('ok');
    expect(scheduled.scheduledAtMs).toBe(job.nextRunAtMs);
    expect(scheduled.startedAtMs - scheduled.scheduledAtMs!).toBeLessThan(2_000);
    expect(fs.readdirSync(path.join(home.root, 'cron', 'output', job.id))).toHaveLength(2);

    gateway.child.kill('SIGTERM');
    expect((await gateway.exited).code).toBe(0);
  });
});
