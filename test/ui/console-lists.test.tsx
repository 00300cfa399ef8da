import { readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { renderConsole, replaceText, slash, typeText } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { githubExample, githubHeaders, SECRET } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

const LONG_ROUTE = 'a-route-with-a-very-long-name-indeed';

async function webhookConsole(options: { clipboard?: boolean } = {}) {
  const view = await renderConsole({
    ...options,
    size: { columns: 160, rows: 50 },
    edit: (config) => {
      config.platforms!.webhook!.enabled = true;
      config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Issue: {issue.title}', rate_limit: 1000 }, [LONG_ROUTE]: { secret: SECRET, rate_limit: 1000 }, tight: { secret: SECRET, rate_limit: 1 } };
    },
  });
  closers.push(view.close);
  const app = view.gateway.webhookApp!;
  const post = (deliveryId: string, route = 'gh', { secret = SECRET, event = 'issues' } = {}) => {
    const body = JSON.stringify(event === 'issues' ? githubExample('issues', 'opened') : { zen: 'hi' });
    return app.inject({ method: 'POST', url: `/webhooks/${route}`, headers: githubHeaders(secret, body, event, deliveryId), payload: body });
  };
  view.stdin.write('2');
  await waitForFrame(view.lastFrame, (frame) => frame.includes('route gh'));
  return { ...view, post };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const press = async (stdin: { write(data: string): void }, key: string, times = 1) => {
  for (let count = 0; count < times; count += 1) {
    stdin.write(key);
    await tick();
  }
};
/** The pane's title line: position and follow state. */
const titleOf = (frame: string) => frame.split('\n').find((line) => line.startsWith('Routes and requests')) ?? '';

describe('console lists: selection by id, follow mode, fixed columns', () => {
  it('keeps the selected delivery while 20 newer ones arrive: the highlight, Enter and r all mean that delivery', async () => {
    const { lastFrame, stdin, post, gateway } = await webhookConsole();
    for (const id of ['d-0', 'd-1', 'd-2']) expect((await post(id)).statusCode).toBe(202);
    await waitForFrame(lastFrame, (f) => /d-0\s+accepted/.test(f) && /d-2\s+accepted/.test(f));
    // Rows: route gh, the long route, tight, d-2, d-1, d-0. Select d-1 (the fifth row).
    await press(stdin, keys.down, 4);
    for (let n = 0; n < 20; n += 1) await post(`new-${n}`);
    await waitForFrame(lastFrame, (f) => /new-19\s+accepted/.test(f), 10_000);
    // 20 rows above it now: the selection moved down with its delivery.
    expect(titleOf(lastFrame()!)).toContain('25/26 · paused (f follows)');
    await press(stdin, 'r');
    await waitForFrame(lastFrame, (f) => f.includes('Replay queued as d-1.replay-1.'));
    const replays = (await gateway.webhooks.recent({ limit: 100 })).filter((record) => record.replayOf !== null);
    expect(replays.map((record) => record.replayOf)).toEqual(['d-1']);
    // The replay adds a row above too; Enter still opens d-1.
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (f) => /gh issues d-1: /.test(f));
  });

  it('keeps a selected delivery the ring of 500 has dropped: r still replays exactly it', { timeout: 120_000 }, async () => {
    const { lastFrame, stdin, post, gateway } = await webhookConsole();
    await post('d-keep');
    await waitForFrame(lastFrame, (f) => /d-keep\s+accepted/.test(f));
    await press(stdin, keys.down, 3);
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('4/4 · paused'));
    for (let batch = 0; batch < 11; batch += 1) await Promise.all(Array.from({ length: 50 }, (_unused, n) => post(`flood-${batch}-${n}`)));
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('the selected row left the list (503 kept)'), 30_000);
    await press(stdin, 'r');
    await waitForFrame(lastFrame, (f) => f.includes('Replay queued as d-keep.replay-1.'));
    expect((await gateway.webhooks.recent({ limit: 1000 })).filter((record) => record.replayOf !== null).map((record) => record.replayOf)).toEqual(['d-keep']);
  });

  it('follows the newest while the selection is at the top; f stops and starts it', async () => {
    const { lastFrame, stdin, post } = await webhookConsole();
    await post('d-0');
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('1/4 · following newest (f stops)'));
    await press(stdin, 'f');
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('1/4 · paused (f follows)'));
    // Paused on d-0: a newer row above moves it down, still selected.
    await press(stdin, keys.down, 3);
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('4/4 · paused'));
    await post('d-1');
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('5/5 · paused'));
    await press(stdin, 'f');
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('1/5 · following newest'));
    // Moving up to the top row follows again on its own.
    await press(stdin, keys.down);
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('2/5 · paused'));
    await press(stdin, keys.up);
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('1/5 · following newest'));
  });

  it('cuts a long route name to a fixed column: every row keeps its columns', async () => {
    const { lastFrame, post, stdin, gateway } = await webhookConsole();
    await post('d-short');
    await post('d-long', LONG_ROUTE);
    const frame = await waitForFrame(lastFrame, (f) => /d-short\s+accepted/.test(f) && /d-long\s+accepted/.test(f));
    const lines = frame.split('\n');
    const short = lines.find((line) => /d-short\s+accepted/.test(line))!;
    const long = lines.find((line) => /d-long\s+accepted/.test(line))!;
    expect(long).not.toContain(LONG_ROUTE);
    expect(long).toContain('a-route-with-a-very~ issues');
    expect(long.indexOf('issues')).toBe(short.indexOf('issues'));
    expect(long.indexOf('d-long')).toBe(short.indexOf('d-short'));
    // Why refused or ignored rows were not run, on the row itself (cut to the pane; Enter shows it whole).
    await post('d-short');
    await post('d-bad', 'gh', { secret: 'wrong-secret-0000' });
    await post('d-ping', 'gh', { event: 'ping' });
    await post('d-t1', 'tight');
    expect((await post('d-t2', 'tight')).statusCode).toBe(429);
    // The log column on the right names the deliveries too: wait for the rows themselves.
    const reasons = await waitForFrame(lastFrame, (f) => /d-t2\s+429/.test(f) && /d-ping\s+ignored/.test(f) && /d-bad\s+401/.test(f) && /d-short\s+duplicate/.test(f));
    expect(reasons).toMatch(/d-bad\s+401\s+X-Hub-Signature-256 d/);
    expect(reasons).toMatch(/d-ping\s+ignored\s+GitHub's ping is/);
    expect(reasons).toMatch(/d-short\s+duplicate\s+delivery d-short was/);
    expect(reasons).toMatch(/d-t2\s+429\s+\S/);
    // Jobs too: a long name never pushes the schedule column.
    await gateway.jobs.create({ schedule: 'every 3h', prompt: 'p', name: 'short', deliver: 'log' });
    await gateway.jobs.create({ schedule: 'every 3h', prompt: 'p', name: `long-${'n'.repeat(60)}`, deliver: 'log' });
    stdin.write('3');
    const jobs = await waitForFrame(lastFrame, (f) => /^long-n+~? +every 3h/m.test(f) && /^short +every 3h/m.test(f));
    const jobLines = jobs.split('\n');
    const columnOf = (prefix: string) => jobLines.find((line) => line.startsWith(prefix))!.indexOf('every 3h');
    expect(columnOf('long-')).toBe(columnOf('short'));
    // The list's title line gives the position.
    expect(jobs).toMatch(/^Jobs · 1\/2/m);
  });
});

describe('console secrets and the test editor', () => {
  it('without a clipboard, c s y writes the route secret to a 0600 file under the home and shows only its path', async () => {
    const { lastFrame, stdin, home } = await webhookConsole({ clipboard: false });
    await press(stdin, 'c');
    await waitForFrame(lastFrame, (f) => f.includes('Copy from route gh'));
    await press(stdin, 's');
    await waitForFrame(lastFrame, (f) => f.includes('Copy the secret of route gh?'));
    await press(stdin, 'y');
    const frame = await waitForFrame(lastFrame, (f) => f.includes('No clipboard here: wrote the secret of route gh to'));
    const file = `${home.root}/run/secrets/gh.secret`;
    expect(frame).toContain('gh.secret (mode 0600)');
    expect(frame).not.toContain(SECRET);
    expect(readFileSync(file, 'utf8').trim()).toBe(SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('t keeps an invalid payload with its parse error in place, sets the event, and sends from under the selected route', async () => {
    const { lastFrame, stdin, gateway } = await webhookConsole();
    await press(stdin, 't');
    const editor = await waitForFrame(lastFrame, (f) => f.includes('body  › {"test": true'));
    const lines = editor.split('\n');
    // Drawn right under the selected row (route gh), with its hint line.
    expect(lines[lines.findIndex((line) => line.startsWith('route gh')) + 1]).toContain('event   test');
    expect(editor).toContain('Tab event/body · Enter send · Esc close');
    await replaceText(stdin, lastFrame, '');
    await typeText(stdin, lastFrame, '{"n": 1,');
    stdin.write(keys.enter);
    const refused = await waitForFrame(lastFrame, (f) => f.includes('Not sent: invalid JSON'));
    expect(refused).toContain('body  › {"n": 1,');
    // Esc closes; t opens the same edit again.
    await press(stdin, keys.escape);
    await waitForFrame(lastFrame, (f) => !f.includes('body  ›'));
    await press(stdin, 't');
    await waitForFrame(lastFrame, (f) => f.includes('body  › {"n": 1,'));
    await typeText(stdin, lastFrame, ' "q": 2}');
    await press(stdin, keys.tab);
    await waitForFrame(lastFrame, (f) => f.includes('event › test'));
    await replaceText(stdin, lastFrame, 'push');
    // Enter on the event goes to the body; Enter there sends.
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (f) => f.includes('body  › {"n": 1, "q": 2}'));
    stdin.write(keys.enter);
    const sent = await waitForFrame(lastFrame, (f) => f.includes('Test to gh: HTTP 202'));
    const id = /delivery (test-[0-9a-f-]+)\)/.exec(sent)![1]!;
    const record = (await gateway.webhooks.find(id))!;
    expect(record.event).toBe('push');
  });
});

describe('the subscription card without a clipboard', () => {
  it('c s y on a new subscription writes its secret to a 0600 file too: never on the screen', async () => {
    const view = await renderConsole({ size: { columns: 200, rows: 30 }, clipboard: false });
    closers.push(view.close);
    const { lastFrame, stdin, gateway, home } = view;
    await waitForFrame(lastFrame, (f) => f.includes('switchboard in-process · http://127.0.0.1:'));
    await slash(stdin, lastFrame, 'webhook subscribe ci --events push');
    await waitForFrame(lastFrame, (f) => f.includes('Subscribed "ci"'));
    const secret = await gateway.webhooks.secretFor('ci');
    if (!secret.ok) throw new Error(secret.reason);
    // The card is drawn before React's effects attach its key handler: let them run.
    for (let count = 0; count < 10; count += 1) await tick();
    await press(stdin, 'c');
    await waitForFrame(lastFrame, (f) => f.includes('Copy: u the URL · s the secret'));
    await press(stdin, 's');
    await press(stdin, 'y');
    const frame = await waitForFrame(lastFrame, (f) => f.includes('No clipboard here: wrote the secret of ci to'));
    expect(frame).not.toContain(secret.value);
    expect(readFileSync(`${home.root}/run/secrets/ci.secret`, 'utf8').trim()).toBe(secret.value);
  });
});
