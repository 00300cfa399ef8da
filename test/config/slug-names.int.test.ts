import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../source/config/validate.js';
import { slugify } from '../../source/infra/slug.js';
import { createJobCommands } from '../../source/scheduler/job-commands.js';
import { openStore, type Store } from '../../source/store/database.js';
import { sqliteBackends } from '../../source/store/async-domains.js';
import { subscribeWebhook, unsubscribeWebhook } from '../../source/webhooks/subscribe.js';
import { tempHome } from '../helpers/temp-home.js';

const stores: Store[] = [];
afterEach(() => { for (const store of stores.splice(0)) store.close(); });

function store(): Store {
  const opened = openStore(tempHome().stateDb);
  stores.push(opened);
  return opened;
}

describe('slugify (issue #18 item 19)', () => {
  it.each([
    ['My Hook', 'my-hook'],
    ['  GitHub -- PRs!! ', 'github-prs'],
    ['Café Crème', 'cafe-creme'],
    ['deploy_prod', 'deploy_prod'],
    ['_x_', 'x'],
    ['日本', ''],
    [`${'word '.repeat(20)}end`, 'word-word-word-word-word-word-word-word-word-word-word-word-word'],
  ])('%j -> %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });
});

describe('route names become URL slugs', () => {
  const deps = (s: Store) => ({ subscriptions: sqliteBackends(s).subscriptions, values: {}, host: '127.0.0.1', isStaticRoute: () => false, now: () => 1 });

  it('a subscription "My Hook" is served as my-hook; a second name slugifying to it is refused; the slug itself updates it', async () => {
    const d = deps(store());
    const made = await subscribeWebhook(d, { name: 'My Hook' });
    expect(made.ok && made.value.subscription.name).toBe('my-hook');
    const clash = await subscribeWebhook(d, { name: 'MY  hook!' });
    expect(clash).toMatchObject({ ok: false, reason: '"MY  hook!" becomes "my-hook", which is already a subscription. To change that subscription, name it exactly: my-hook; otherwise choose another name.' });
    const updated = await subscribeWebhook(d, { name: 'my-hook', description: 'second' });
    expect(updated.ok && updated.value).toMatchObject({ created: false, subscription: { name: 'my-hook', description: 'second' } });
    expect(await subscribeWebhook(d, { name: '!!!' })).toMatchObject({ ok: false, reason: expect.stringContaining('"!!!" is not a usable subscription name') });
    expect(await unsubscribeWebhook(d, 'My Hook')).toMatchObject({ ok: true, value: { name: 'my-hook' } });
  });

  it('a static route whose name is not a slug is refused with the name to use', () => {
    const issues = validateConfig({ platforms: { webhook: { extra: { routes: { MyHook: { secret: 'x' }, 'deploy prod': { secret: 'y' }, ok_name: { secret: 'z' } } } } } });
    expect(issues).toEqual([
      { path: 'platforms.webhook.extra.routes.MyHook', reason: 'route name "MyHook" is not URL-safe (lower-case letters, digits, "_" and "-"): rename it to "myhook"' },
      { path: 'platforms.webhook.extra.routes["deploy prod"]', reason: 'route name "deploy prod" is not URL-safe (lower-case letters, digits, "_" and "-"): rename it to "deploy-prod"' },
    ]);
  });
});

describe('job names become slugs', () => {
  const context = { origin: 'cli', defaultDeliver: 'log', baseDir: '/' };

  it('shows the slug, refuses a second job of that name, finds it by either spelling; the default name is the prompt slugified', async () => {
    const commands = createJobCommands({ jobs: sqliteBackends(store()).jobs, timezone: 'UTC', now: () => Date.UTC(2026, 0, 1) });
    const first = await commands.create({ schedule: 'every 1h', prompt: 'x', name: 'My Job' }, context);
    expect(first.ok && first.value.name).toBe('my-job');
    expect(await commands.create({ schedule: 'every 2h', prompt: 'y', name: 'my job' }, context))
      .toEqual({ ok: false, reason: `a job named "my-job" already exists (${first.ok ? first.value.id : ''}): choose another name` });
    expect(await commands.find('My Job')).toMatchObject({ ok: true, value: { name: 'my-job' } });
    const other = await commands.create({ schedule: 'every 1h', prompt: 'Summarize open pull requests for the team\nthen more' }, context);
    expect(other.ok && other.value.name).toBe('summarize-open-pull-requests-for-the-team');
    expect(await commands.edit('summarize-open-pull-requests-for-the-team', { name: 'MY JOB' }, context)).toMatchObject({ ok: false, reason: expect.stringContaining('a job named "my-job" already exists') });
    expect(await commands.create({ schedule: 'every 1h', prompt: 'x', name: '???' }, context)).toMatchObject({ ok: false, reason: expect.stringContaining('the name "???" has no letters or digits') });
  });
});
