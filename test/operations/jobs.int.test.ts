import { describe, expect, it } from 'vitest';
import { preparedHome, startHost } from '../helpers/host.js';

describe('jobs operations', () => {
  it('refuse a skill that is missing (the console\'s /cron create and the job form call these): invalid, naming the skill', async () => {
    const home = preparedHome();
    const host = await startHost(home);
    await expect(host.operations.jobs.create({ schedule: 'every 1d', prompt: 'Say hi', skills: ['nosuch'], origin: 'console' })).rejects.toMatchObject({
      code: 'invalid', message: `Job not created: skill "nosuch" not found: no skill is installed in ${home.skillsDir} (add one as <folder>/SKILL.md there)`,
    });
    const { job } = await host.operations.jobs.create({ schedule: 'every 1d', prompt: 'Say hi', name: 'hi', origin: 'console' });
    await expect(host.operations.jobs.edit({ job: job.id, skills: ['nosuch'] })).rejects.toMatchObject({ code: 'invalid', message: expect.stringContaining('Job hi not changed: skill "nosuch" not found') });
  });

  it('lists the kept runs of a removed job by its id or id prefix; an unknown name still fails, with its hint once', async () => {
    const host = await startHost(preparedHome());
    const { job } = await host.operations.jobs.create({ schedule: 'every 1d', prompt: 'Say hi', name: 'gone', origin: 'cli' });
    await host.operations.jobs.run({ job: job.id });
    await host.operations.jobs.remove({ job: job.id });
    expect((await host.operations.jobs.runs({ job: job.id })).runs).toMatchObject([{ jobId: job.id, jobName: 'gone' }]);
    expect((await host.operations.jobs.runs({ job: job.id.slice(0, 8) })).runs).toMatchObject([{ jobId: job.id }]);
    const failure = await host.operations.jobs.runs({ job: 'nothing-here' }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'not_found', message: 'Cannot list the runs of the job: no job with id or name "nothing-here"', hint: 'See the jobs: switchboard cron list --all' });
  });
});
