import { afterEach, describe, expect, it } from 'vitest';
import { bottomLine, renderConsole, slash } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';
import { githubHeaders } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

const press = async (stdin: { write(data: string): void }, key: string) => {
  stdin.write(key);
  await new Promise((resolve) => setImmediate(resolve));
};

describe('/webhook in the console (the core subscribe command the CLI uses too)', () => {
  it('subscribes: a card with URL, masked secret, events and target; c s y copies the secret; the route is served at once', async () => {
    const view = await renderConsole({ size: { columns: 200, rows: 30 } });
    closers.push(view.close);
    const { lastFrame, stdin, gateway, copied } = view;
    await waitForFrame(lastFrame, (f) => f.includes("switchboard in-process · http://127.0.0.1:"));
    await slash(stdin, lastFrame, 'webhook subscribe CI --events push,pull_request --prompt "Build {ref} now" --deliver local --deliver-extra note={ref} --description "CI hook"');
    const card = await waitForFrame(lastFrame, (f) => f.includes('Subscribed "ci"'));
    const url = (await gateway.webhooks.routes()).find((route) => route.name === 'ci')!.url!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/ci$/);
    expect(card).toContain(`URL:      ${url}`);
    expect(card).toContain('Secret:   ••••');
    expect(card).toContain('Events:   push, pull_request');
    expect(card).toContain('Deliver:  local note={ref}');
    expect(card).toContain('Prompt:   Build {ref} now');
    const secret = await gateway.webhooks.secretFor('ci');
    if (!secret.ok) throw new Error(secret.reason);
    expect(card).not.toContain(secret.value);

    // The card is drawn before React's effects attach its key handler: let them run.
    for (let tick = 0; tick < 10; tick += 1) await new Promise((resolve) => setImmediate(resolve));
    await press(stdin, 'c');
    await waitForFrame(lastFrame, (f) => f.includes('Copy: u the URL · s the secret'));
    await press(stdin, 's');
    await waitForFrame(lastFrame, (f) => f.includes('Copy the secret of ci to the clipboard? y'));
    await press(stdin, 'y');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Copied the secret of ci to the clipboard.'));
    expect(copied).toEqual([secret.value]);
    expect(lastFrame()).not.toContain(secret.value);

    // Real HTTP to the listener, signed with the generated secret: accepted on the new route.
    const body = JSON.stringify({ ref: 'main' });
    const response = await fetch(url, { method: 'POST', headers: githubHeaders(secret.value, body, 'push'), body });
    expect(response.status).toBe(202);

    // A re-subscribe changes what is given and keeps the secret.
    await slash(stdin, lastFrame, 'webhook subscribe ci --events push');
    const updated = await waitForFrame(lastFrame, (f) => f.includes('Updated "ci"'));
    expect(updated).toContain('Secret:   •••• (kept)');
    expect(updated).toMatch(/Events: {3}push\s/);
    expect(updated).toContain('Deliver:  local note={ref}');
    await press(stdin, 'x');
    await waitForFrame(lastFrame, (f) => !f.includes('Secret:'));
    const kept = await gateway.webhooks.secretFor('ci');
    expect(kept.ok && kept.value).toBe(secret.value);

    await slash(stdin, lastFrame, 'webhook list');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('2 route(s): demo [static] all events -> log, ci [subscription] push -> local'));
    await press(stdin, '2');
    await waitForFrame(lastFrame, (f) => /route ci\s+http:\/\/127\.0\.0\.1:\d+\/webhooks\/ci \(subscription\)/.test(f));

    await slash(stdin, lastFrame, 'webhook remove ci');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Removed subscription "ci"; /webhooks/ci is no longer served.'));
    const gone = await fetch(url, { method: 'POST', headers: githubHeaders(secret.value, body, 'push'), body });
    expect(gone.status).toBe(404);
  });

  it('refuses bad input with a clear reason and writes nothing', async () => {
    const view = await renderConsole({ size: { columns: 160, rows: 30 } });
    closers.push(view.close);
    const { lastFrame, stdin, gateway } = view;
    await slash(stdin, lastFrame, 'webhook subscribe x --deliver pigeon');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Not subscribed: --deliver "pigeon": unknown delivery target "pigeon"'));
    await slash(stdin, lastFrame, 'webhook subscribe x --deliver telegram:42');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Not subscribed: --deliver "telegram:42": platforms.telegram is not enabled'));
    await slash(stdin, lastFrame, 'webhook subscribe //');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Not subscribed: "//" is not a usable subscription name'));
    await slash(stdin, lastFrame, 'webhook subscribe x --colour red');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Not subscribed: unknown option --colour'));
    await slash(stdin, lastFrame, 'webhook subscribe x --secret short');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Not subscribed: --secret is shorter than 8 characters'));
    await slash(stdin, lastFrame, 'webhook remove demo');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Not removed: "demo" is a static route in config.json, not a subscription'));
    await slash(stdin, lastFrame, 'webhook frobnicate');
    await waitForFrame(lastFrame, (f) => bottomLine(f).startsWith('Usage: /webhook subscribe <name>'));
    expect((await gateway.webhooks.routes()).map((route) => route.name)).toEqual(['demo']);
  });
});
