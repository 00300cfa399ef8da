import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../source/config/default-config.js';
import { startScriptedModel } from '../fixtures/scripted-model.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';
import { tmuxServer } from '../helpers/tmux.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const server = tmuxServer('e2e');
const { tmux } = server;
const capture = () => server.capture('console');
const send = (key: string) => server.send('console', key);
const sessionAlive = () => {
  try {
    tmux('has-session', '-t', 'console');
    return true;
  } catch {
    return false;
  }
};

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

/** Starts the console in the tmux session `console` and waits for its header to show the listener URL it bound. */
async function startConsole(lockFile: string, columns: number, rows: number, command: string): Promise<string> {
  tmux('new-session', '-d', '-s', 'console', '-x', String(columns), '-y', String(rows), command);
  closers.push(() => { if (sessionAlive()) tmux('kill-server'); });
  const url = await waitUntil(() => {
    try {
      return (JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { webhookUrl?: string }).webhookUrl;
    } catch {
      return undefined;
    }
  }, 30_000, 'the console gateway to bind its listener');
  await waitUntil(() => capture().includes(url), 10_000, 'the header with the listener URL');
  return url;
}

describe('the built console under tmux', () => {
  it('shows a signed webhook as accepted, takes an approval with a key, and shows the run delivered', { timeout: 120_000 }, async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', args: { command: 'rm -rf scratch && echo cleaned' } }] },
      { text: 'Cleaned the scratch folder.' },
    ]);
    closers.push(model.close);
    const home = tempHome();
    const config = defaultConfig();
    config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted' };
    config.platforms!.webhook!.enabled = true;
    config.platforms!.webhook!.extra!.port = 0;
    config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Clean up after {action}', deliver: 'log' } };
    fs.mkdirSync(home.root, { recursive: true, mode: 0o700 });
    fs.writeFileSync(home.configFile, JSON.stringify(config), { mode: 0o600 });

    const url = await startConsole(home.lockFile, 130, 40, `${process.execPath} ${cliPath} --home ${home.root}`);

    send('2');
    await waitUntil(() => capture().includes(`route gh`), 10_000, 'the Webhook deliveries pane');
    const body = JSON.stringify({ action: 'opened', number: 7 });
    const response = await fetch(`${url}/webhooks/gh`, { method: 'POST', headers: githubHeaders(SECRET, body, 'issues', 'e2e-delivery-1'), body });
    expect(response.status).toBe(202);

    // tmux can capture a frame Ink is still drawing (the dialog written, the rows below not yet),
    // so wait for one frame that shows the dialog and the running row together.
    const dialog = await waitUntil(() => {
      const frame = capture();
      return frame.includes('Approval 1 of 1') && /e2e-delivery-1\s+accepted\s+running/.test(frame) ? frame : undefined;
    }, 30_000, 'the approval dialog over the running delivery');
    expect(dialog).toContain('from webhook:gh:e2e-delivery-1');
    expect(dialog).toContain('rm -rf scratch && echo cleaned');
    send('a');
    const done = await waitUntil(() => { const frame = capture(); return /e2e-delivery-1\s+accepted\s+delivered/.test(frame) ? frame : undefined; }, 30_000, 'the delivered row');
    expect(done).not.toContain('Approval 1 of 1');
    expect(model.remaining()).toBe(0);

    send('q');
    await waitUntil(() => !sessionAlive(), 30_000, 'the console to quit on q');
    expect(fs.existsSync(home.lockFile)).toBe(false);
  });

  it('E hands the terminal to $EDITOR and applies the saved route live; e shows a route form with its secret masked', { timeout: 120_000 }, async () => {
    const home = tempHome();
    const config = defaultConfig();
    config.platforms!.webhook!.extra!.port = 0;
    config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, events: ['issues'], deliver: 'log' } };
    fs.mkdirSync(home.root, { recursive: true, mode: 0o700 });
    fs.writeFileSync(home.configFile, JSON.stringify(config, undefined, 2), { mode: 0o600 });
    // The fake editor: a real subprocess that edits the file with sed, as a person would in vi.
    const editor = `${home.root}/editor.sh`;
    fs.writeFileSync(editor, `#!/bin/sh\nsed -i 's/"issues"/"push"/' "$1"\n`, { mode: 0o755 });

    const url = await startConsole(home.lockFile, 120, 30, `env EDITOR=${editor} ${process.execPath} ${cliPath} --home ${home.root}`);
    const post = (event: string) => {
      const body = JSON.stringify({ ref: 'main' });
      return fetch(`${url}/webhooks/gh`, { method: 'POST', headers: githubHeaders(SECRET, body, event), body });
    };
    expect((await post('push')).status).toBe(200); // ignored: only issues so far

    send('E');
    const back = await waitUntil(() => { const frame = capture(); return frame.includes('routes: updated gh') ? frame : undefined; }, 30_000, 'the console back from the editor');
    expect(back).toContain(url);
    expect((await post('push')).status).toBe(202);

    send('2');
    await waitUntil(() => capture().includes('route gh'), 10_000, 'the Webhook deliveries pane');
    send('e');
    const form = await waitUntil(() => { const frame = capture(); return frame.includes('Edit webhook route "gh"') && /events\s+push/.test(frame) ? frame : undefined; }, 10_000, 'the route form with the edited events');
    expect(form).not.toContain(SECRET);
    send('Escape');
    await waitUntil(() => capture().includes('Edit cancelled; nothing was written.'), 10_000, 'the form to close');
    send('q');
    await waitUntil(() => !sessionAlive(), 30_000, 'the console to quit on q');
  });

  it('on a fresh home, its first notice says where config.json was written (stderr is under its screen)', { timeout: 60_000 }, async () => {
    const home = tempHome();
    tmux('new-session', '-d', '-s', 'console', '-x', '140', '-y', '45', `${process.execPath} ${cliPath} --home ${home.root}`);
    closers.push(() => { if (sessionAlive()) tmux('kill-server'); });
    await waitUntil(() => capture().includes(`First run: created ${home.configFile} with a demo route, /webhooks/demo (more when you quit). ? for keys.`), 20_000, 'the first-run notice on the bottom line');
  });

  it('after config.json was written through it, SIGTERM still stops it in order (conf loads when-exit, which used to re-send the signal)', { timeout: 120_000 }, async () => {
    const home = tempHome();
    const config = defaultConfig();
    config.platforms!.webhook!.extra!.port = 0;
    fs.mkdirSync(home.root, { recursive: true, mode: 0o700 });
    fs.writeFileSync(home.configFile, JSON.stringify(config, undefined, 2), { mode: 0o600 });
    // `; echo` keeps the pane after the console exits, with its exit code.
    await startConsole(home.lockFile, 120, 30, `sh -c '${process.execPath} ${cliPath} --home ${home.root}; echo "console exit $?"; sleep 30'`);
    const set = await runCli(['config', 'set', 'logging.level', 'debug', '--home', home.root]);
    expect(set.stdout + set.stderr).toMatch(/running gateway \(pid \d+\) needs a restart/);
    const pid = (JSON.parse(fs.readFileSync(home.lockFile, 'utf8')) as { pid: number }).pid;
    process.kill(pid, 'SIGTERM');
    await waitUntil(() => capture().includes('console exit'), 30_000, 'the console to exit');
    expect(capture()).toContain('console exit 0');
    expect(fs.existsSync(home.lockFile)).toBe(false);
  });
});
