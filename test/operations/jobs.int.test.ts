import { describe, expect, it } from 'vitest';
import { preparedHome, startHost } from '../helpers/host.js';

describe('jobs operations', () => {
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
