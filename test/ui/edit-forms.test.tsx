import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { bottomLine, focusField as focusAt, renderConsole, replaceText, submitForm, typeText } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { FIXTURE_SERVER, NODE } from '../helpers/mcp.js';
import { githubHeaders, SECRET } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Focus by config key: the label is the key, padded or marked required. */
const focusField = (stdin: { write(data: string): void }, lastFrame: () => string | undefined, key: string) => focusAt(stdin, lastFrame, `${key}[ *]`);

const readConfig = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('e: edit forms validated against config.schema.json and applied live', () => {
  it('edits an MCP server: stdio keys only, env secret masked and kept, type and schema errors inline, then reloaded', async () => {
    const view = await renderConsole({
      size: { columns: 120, rows: 30 },
      edit: (config) => { config.mcp_servers = { fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], env: { API_TOKEN: 'tok-very-secret-value' }, timeout: 30 } }; },
    });
    closers.push(view.close);
    const { lastFrame, stdin, home } = view;
    stdin.write('1');
    await waitForFrame(lastFrame, (f) => /fx\s+● ready/.test(f), 20_000);
    stdin.write('e');
    const form = await waitForFrame(lastFrame, (f) => f.includes('Edit MCP server "fx" (stdio)'));
    expect(form).toMatch(/❯ command\s+\S*node/);
    expect(form).toContain('{"API_TOKEN":"••••"}');
    expect(form).not.toContain('tok-very-secret-value');
    expect(form).not.toMatch(/\burl\b/); // an HTTP key, left out for a stdio server

    await focusField(stdin, lastFrame, 'timeout');
    await replaceText(stdin, lastFrame, 'abc');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => f.includes('must be a number (got "abc")') && /❯ timeout/.test(f));
    await replaceText(stdin, lastFrame, '0');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => f.includes('mcp_servers.fx.timeout: must be > 0'));
    expect(readConfig(home.configFile).mcp_servers.fx.timeout).toBe(30);

    await focusField(stdin, lastFrame, 'timeout');
    await replaceText(stdin, lastFrame, '45');
    await focusField(stdin, lastFrame, 'enabled');
    await replaceText(stdin, lastFrame, 'false');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Saved mcp_servers.fx: mcp_servers.fx changed; MCP reconnecting fx.'));
    // Applied live: the server is disabled now, and the file kept the secret it never showed.
    await waitForFrame(lastFrame, (f) => /fx\s+● disabled/.test(f), 10_000);
    const entry = readConfig(home.configFile).mcp_servers.fx;
    expect(entry).toMatchObject({ timeout: 45, enabled: false, env: { API_TOKEN: 'tok-very-secret-value' }, args: [FIXTURE_SERVER, 'stdio'] });
    expect(fs.statSync(home.configFile).mode & 0o777).toBe(0o600);

    stdin.write('e');
    await waitForFrame(lastFrame, (f) => f.includes('Edit MCP server "fx"'));
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Edit cancelled; nothing was written.'));
  });

  it('edits a static route: secret masked and kept unless retyped, target checked, served with the change at once', async () => {
    const view = await renderConsole({
      size: { columns: 120, rows: 30 },
      edit: (config) => { config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Event {action}', deliver: 'log' } }; },
    });
    closers.push(view.close);
    const { lastFrame, stdin, home, gateway } = view;
    stdin.write('2');
    await waitForFrame(lastFrame, (f) => f.includes('route gh'));
    stdin.write('e');
    const form = await waitForFrame(lastFrame, (f) => f.includes('Edit webhook route "gh"'));
    expect(form).toContain('❯ secret');
    expect(form).toContain('••••');
    expect(form).not.toContain(SECRET);

    await focusField(stdin, lastFrame, 'events');
    await replaceText(stdin, lastFrame, 'push');
    await focusField(stdin, lastFrame, 'deliver');
    await replaceText(stdin, lastFrame, 'pigeon');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => f.includes('platforms.webhook.extra.routes.gh.deliver: unknown delivery target "pigeon"'));
    await focusField(stdin, lastFrame, 'deliver');
    await replaceText(stdin, lastFrame, 'log');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Saved platforms.webhook.extra.routes.gh: platforms.webhook.extra.routes.gh changed; routes: updated gh.'));
    expect(readConfig(home.configFile).platforms.webhook.extra.routes.gh).toEqual({ secret: SECRET, prompt: 'Event {action}', deliver: 'log', events: ['push'] });

    // Real HTTP: the listener filters on the new events list, with the secret it kept.
    const url = (await gateway.webhooks.routes()).find((route) => route.name === 'gh')!.url!;
    const post = (event: string, secret: string) => {
      const body = JSON.stringify({ action: 'opened' });
      return fetch(url, { method: 'POST', headers: githubHeaders(secret, body, event), body });
    };
    expect((await post('issues', SECRET)).status).toBe(200); // ignored: not in events any more
    expect((await post('push', SECRET)).status).toBe(202);

    stdin.write('e');
    await waitForFrame(lastFrame, (f) => f.includes('Edit webhook route "gh"'));
    for (const char of 'rotated-secret-0123') {
      stdin.write(char);
      await tick();
    }
    const typed = await waitForFrame(lastFrame, (f) => f.includes(`❯ secret         ${'•'.repeat(19)}`));
    expect(typed).not.toContain('secret-0123');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('routes: updated gh'));
    expect((await post('push', SECRET)).status).toBe(401);
    expect((await post('push', 'rotated-secret-0123')).status).toBe(202);
  });

  it('edits a job through the core job commands (not config.json): a bad schedule is refused, then paused and rescheduled', async () => {
    const view = await renderConsole({ size: { columns: 120, rows: 30 } });
    closers.push(view.close);
    const { lastFrame, stdin, gateway, home } = view;
    const created = await gateway.jobs.create({ schedule: 'every 3h', prompt: 'summarise the night', name: 'nightly', deliver: 'log' });
    if (!created.ok) throw new Error(created.reason);
    const before = fs.readFileSync(home.configFile, 'utf8');
    stdin.write('3');
    await waitForFrame(lastFrame, (f) => /nightly\s+every 3h/.test(f));
    stdin.write('e');
    const form = await waitForFrame(lastFrame, (f) => f.includes(`Edit job nightly (${created.value.id})`));
    expect(form).toMatch(/❯ schedule \*\s+every 3h/);
    expect(form).toMatch(/catch_up\s+once/);

    await replaceText(stdin, lastFrame, 'every banana');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => f.includes('Not saved: Job nightly not changed: invalid schedule: "every banana"') && /❯ schedule/.test(f));
    await focusField(stdin, lastFrame, 'schedule');
    await replaceText(stdin, lastFrame, 'every 2h');
    await focusField(stdin, lastFrame, 'prompt');
    await replaceText(stdin, lastFrame, '');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => /prompt \*/.test(f) && f.includes('is required'));
    await focusField(stdin, lastFrame, 'prompt');
    await typeText(stdin, lastFrame, 'summarise the day');
    await focusField(stdin, lastFrame, 'enabled');
    await replaceText(stdin, lastFrame, 'no');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes(`Saved job nightly (${created.value.id}): every 2h, deliver log, paused.`));
    await waitForFrame(lastFrame, (f) => /nightly\s+every 2h\s+paused/.test(f));
    expect(await gateway.jobs.find(created.value.id)).toMatchObject({ ok: true, value: { schedule: 'every 2h', prompt: 'summarise the day', enabled: false } });
    expect(fs.readFileSync(home.configFile, 'utf8')).toBe(before);
  });
});
