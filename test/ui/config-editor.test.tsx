import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bottomLine, renderConsole } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

/** A fake $EDITOR: a shell script that edits the file it is given with sed, a different edit on each run. */
function fakeEditor(edits: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-editor-'));
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'editor.sh');
  const cases = edits.map((edit, index) => `  ${index + 1}) ${edit || ':'} ;;`).join('\n');
  fs.writeFileSync(script, `#!/bin/sh\nn=$(cat "${dir}/runs" 2>/dev/null || echo 0)\nn=$((n + 1))\necho $n > "${dir}/runs"\ncase $n in\n${cases}\nesac\n`, { mode: 0o755 });
  return script;
}

describe('E: config.json in $EDITOR', () => {
  it('the config watch waits while the editor is open: a save taking longer than its interval is applied once, on return', async () => {
    // The editor saves, then stays open past two watch intervals (1 s each), as a person would.
    const editor = fakeEditor([`sed -i 's/"deliver": "log"/"deliver": "local"/' "$1"; sleep 2.5`]);
    const view = await renderConsole({ editor, size: { columns: 160, rows: 30 } });
    closers.push(view.close);
    const { lastFrame, stdin, gateway, store } = view;
    await waitForFrame(lastFrame, (f) => f.includes('switchboard in-process · http://127.0.0.1:'));
    stdin.write('E');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('config.json: platforms.webhook.extra.routes.demo changed; routes: updated demo.'), 15_000);
    expect((await gateway.webhooks.routes()).find((route) => route.name === 'demo')?.deliver).toBe('local');
    const sources = (store.db.prepare("SELECT source FROM audit WHERE kind = 'config.changed'").all() as Array<{ source: string }>).map((row) => row.source);
    expect(sources).toEqual(['console']);
  });

  it('reloads what changed on save; an invalid file changes nothing, lists its problems and can be reopened', async () => {
    const editor = fakeEditor([
      `sed -i 's/"deliver": "log"/"deliver": "local"/' "$1"`,
      `sed -i 's/"port": 0/"port": 99999/' "$1"`,
      '',
      `sed -i 's/"port": 99999/"port": 8645/' "$1"`,
    ]);
    const view = await renderConsole({ editor, size: { columns: 160, rows: 30 } });
    closers.push(view.close);
    const { lastFrame, stdin, gateway, home } = view;
    await waitForFrame(lastFrame, (f) => f.includes('switchboard in-process · http://127.0.0.1:'));

    stdin.write('E');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('config.json: platforms.webhook.extra.routes.demo changed; routes: updated demo.'));
    expect((await gateway.webhooks.routes()).find((route) => route.name === 'demo')?.deliver).toBe('local');

    stdin.write('E');
    const problems = await waitForFrame(lastFrame, (f) => f.includes('config.json is invalid; the previous config stays in effect'));
    expect(problems).toContain('platforms.webhook.extra.port: must be <= 65535');
    expect(problems).toContain('Enter or E reopens config.json in $EDITOR');
    // Still the config in effect before the bad save.
    expect(gateway.config.current().values.platforms?.webhook?.extra?.port).toBe(0);

    stdin.write(keys.enter); // run 3 saves nothing: still invalid
    await waitForFrame(lastFrame, (f) => f.includes('config.json is invalid') && fs.readFileSync(path.join(path.dirname(editor), 'runs'), 'utf8').trim() === '3');
    stdin.write('x');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('config.json is left invalid; the previous config stays in effect'));
    expect(JSON.parse(fs.readFileSync(home.configFile, 'utf8')).platforms.webhook.extra.port).toBe(99999);

    stdin.write('E'); // run 4 fixes it
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('config.json: platforms.webhook.extra.port changed; restart to apply platforms.webhook.extra.port.'));
    expect(gateway.config.current().values.platforms?.webhook?.extra?.port).toBe(8645);
  });

  it('says so when the editor fails, and reloads nothing', async () => {
    const view = await renderConsole({ editor: 'false' });
    closers.push(view.close);
    const { lastFrame, stdin } = view;
    stdin.write('E');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('config.json not reloaded: the editor "false" exited with code 1.'));
  });
});
