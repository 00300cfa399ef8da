import { render } from 'ink-testing-library';
import type { ConfigFile } from '../../source/config/types.js';
import { openInEditor } from '../../source/infra/editor.js';
import { inProcessLink, type GatewayLink } from '../../source/operations/link.js';
import { App } from '../../source/ui/App.js';
import { createConsoleModel } from '../../source/ui/console-model.js';
import { preparedHome, startHost } from './host.js';
import { keys, waitForFrame } from './ink.js';

/**
 * The console App over a real gateway host (console mode: the gateway in this process with its
 * control socket; dry-run model unless `edit` says otherwise) in a temp home with config.json
 * written; `size` sets the terminal (ink-testing-library is 100 columns wide otherwise); `editor`
 * is the EDITOR command `E` runs (default: `false`, which fails); `link` attaches the console to
 * another gateway instead (a link from attachLink); `clipboard: false` makes every copy fail (a
 * terminal without one). Push the returned `close` into the test's cleanup.
 */
export async function renderConsole(options: { edit?: (config: ConfigFile) => void; size?: { columns: number; rows: number }; editor?: string; link?: (home: ReturnType<typeof preparedHome>) => Promise<GatewayLink>; clipboard?: boolean } = {}) {
  const home = preparedHome(options.edit ?? (() => {}));
  const host = await startHost(home, 'console');
  const { gateway } = host;
  const link = options.link ? await options.link(home) : inProcessLink(host);
  const model = createConsoleModel({ link, flushMs: 5 });
  await model.ready();
  const copied: string[] = [];
  /** URLs the console asked a browser to open (OAuth login); none is opened for real. */
  const opened: string[] = [];
  let quits = 0;
  const local = options.link ? undefined : { login: gateway.mcp.login, whileEditing: <T,>(work: () => Promise<T>) => gateway.config.whileEditing(work) };
  const view = render(<App model={model} link={link} local={local} copy={async (text) => { if (options.clipboard === false) return false; copied.push(text); return true; }} openUrl={(url) => { opened.push(url); return true; }} openEditor={(file) => openInEditor(file, { ...process.env, EDITOR: options.editor ?? 'false' })} onQuit={() => { quits += 1; }} />);
  if (options.size) {
    Object.defineProperty(view.stdout, 'columns', { value: options.size.columns, configurable: true });
    Object.defineProperty(view.stdout, 'rows', { value: options.size.rows, configurable: true });
    view.stdout.emit('resize');
  }
  const close = async () => {
    view.unmount();
    model.dispose();
    if (options.link) await link.close();
    await host.stop();
  };
  return { ...view, home, host, gateway, store: host.store, model, copied, opened, quits: () => quits, close };
}

/** Turns of the event loop: lets the console draw and settle what a key or an event started. */
export async function ticks(count = 5): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** `renderConsole`, closed by the test's cleanup (`closers`), once its first full frame is drawn. */
export async function readyConsole(closers: Array<() => unknown>, options: Parameters<typeof renderConsole>[0] = {}) {
  const view = await renderConsole(options);
  closers.push(view.close);
  await waitForFrame(view.lastFrame, (frame) => frame.includes(' 1 MCP'));
  await ticks();
  return view;
}

/** Types into the focused input one key at a time (as a person would), then waits for the text to show. */
export async function typeText(stdin: { write(data: string): void }, lastFrame: () => string | undefined, text: string) {
  for (const char of text) {
    stdin.write(char);
    await tick();
  }
  // The whole text where it fits on a line, else its end (a long one wraps or is cut).
  await waitForFrame(lastFrame, (frame) => frame.includes(text.length <= 40 ? text : text.slice(-8)));
}

/** Opens the command line, types a slash command (without the /) and submits it. */
export async function slash(stdin: { write(data: string): void }, lastFrame: () => string | undefined, command: string) {
  stdin.write('/');
  await waitForFrame(lastFrame, (frame) => frame.trimEnd().split('\n').at(-1)!.trim() === '/');
  await typeText(stdin, lastFrame, command);
  stdin.write('\r');
}

/** Turns of the event loop a key needs to be drawn: the router holds the next key until then. */
const tick = async () => { for (let turn = 0; turn < 4; turn += 1) await new Promise((resolve) => setImmediate(resolve)); };

/** Moves a form's focus to the field whose focused line (`❯ label`) matches `label` (a regex source). */
export async function focusField(stdin: { write(data: string): void }, lastFrame: () => string | undefined, label: string) {
  const focused = (frame: string) => new RegExp(`❯ ${label}`).test(frame);
  for (let step = 0; step < 40; step += 1) {
    stdin.write(keys.up);
    await tick();
  }
  for (let step = 0; step < 40 && !focused(lastFrame() ?? ''); step += 1) {
    stdin.write(keys.down);
    await tick();
  }
  await waitForFrame(lastFrame, focused);
}

/** Clears the focused input and types a new value (nothing for ''). */
export async function replaceText(stdin: { write(data: string): void }, lastFrame: () => string | undefined, text: string) {
  for (let count = 0; count < 80; count += 1) {
    stdin.write('\u007F');
    await tick();
  }
  if (text) await typeText(stdin, lastFrame, text);
}

/** Enter on a form's last field submits it. */
export async function submitForm(stdin: { write(data: string): void }) {
  for (let step = 0; step < 40; step += 1) {
    stdin.write(keys.down);
    await tick();
  }
  stdin.write(keys.enter);
}

/** The bottom line of a frame (the console's notice or input line). */
export function bottomLine(frame: string): string {
  return frame.trimEnd().split('\n').at(-1) ?? '';
}
