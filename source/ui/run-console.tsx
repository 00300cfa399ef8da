import { render } from 'ink';
import { commandFor, type HomeLayout } from '../config/home.js';
import { canOpenBrowser, openBrowser } from '../infra/browser.js';
import { copyToClipboard } from '../infra/clipboard.js';
import { openInEditor } from '../infra/editor.js';
import { attachLink, runningGatewayOn } from '../operations/connect.js';
import { OperatorError } from '../operations/errors.js';
import type { HomeGateway } from '../operations/host.js';
import type { GatewayLink } from '../operations/link.js';
import { App, type AppProps } from './App.js';
import { createConsoleModel } from './console-model.js';
import { ATTACHED_CONSOLE_HEAP, IN_PROCESS_CONSOLE_HEAP, tuneHeap } from '../infra/heap-tuning.js';
import { createMouseReporting, wantsMouse } from './mouse.js';
import { terminalIsInteractive } from './terminal.js';

export interface ConsoleOptions {
  home: HomeLayout;
  version: string;
  /** Only attach: fail when no gateway runs on the home. */
  attach?: boolean;
  /** Attach over TCP to this gateway (`--connect tcp://host:port`). */
  connect?: { url: string; token?: string };
  /** False with `--no-mouse`: no mouse reporting, the terminal's own selection works as usual. */
  mouse?: boolean;
  /** This start wrote the home's first config.json: the console's first notice says so (stderr is under the console's screen). */
  firstRun?: boolean;
}

/**
 * The console: attached to the gateway of its home when one runs (or the one `connect` names), else
 * with the gateway in this process (serving the control socket too, so other consoles can attach).
 * Only Ink writes to the terminal. Quitting an attached console detaches; quitting an in-process one
 * runs one ordered shutdown (intake first). Returns the exit code.
 */
export async function runConsole(options: ConsoleOptions): Promise<number> {
  const { home } = options;
  let link: GatewayLink;
  let local: AppProps['local'];
  /** False when the in-process gateway did not stop within its deadline (the process then exits). */
  let stopGateway = async (_reason: string): Promise<boolean> => true;
  /** In-process: starts the gateway once the first frame is on screen. */
  let startGateway: (() => void) | undefined;
  let startFailure: { error: unknown } | undefined;
  if (options.connect) {
    link = await attachLink({ url: options.connect.url, ...(options.connect.token ? { token: options.connect.token } : {}) });
  } else if (await runningGatewayOn(home)) {
    link = await attachLink({ socketPath: home.controlSocket });
  } else if (options.attach) {
    throw new OperatorError('unavailable', `No gateway is running on ${home.root}`, `Start one with: ${commandFor(home, 'gateway')} (or run switchboard without --attach to run it in this console).`);
  } else {
    // The first frame is drawn from the config while the core loads and starts (an attached console never loads the core).
    const { startingGateway } = await import('../operations/starting-link.js');
    const starting = startingGateway(home, options.version);
    link = starting.link;
    const started = new Promise<HomeGateway | undefined>((resolve) => {
      startGateway = () => void starting.start().then((running) => {
        const { gateway } = running.host;
        local = { login: gateway.mcp.login, whileEditing: (work) => gateway.config.whileEditing(work) };
        app.rerender(view());
        resolve(running);
      }, (error: unknown) => {
        // As before the console drew: the terminal back, then the error for the operator.
        startFailure = { error };
        resolve(undefined);
        app.unmount();
      });
    });
    stopGateway = async (reason) => (await (await started)?.stop(reason)) ?? true;
  }
  const untuneHeap = tuneHeap(link.where === 'attached' ? ATTACHED_CONSOLE_HEAP : IN_PROCESS_CONSOLE_HEAP);
  const model = createConsoleModel({ link });
  await model.ready();

  // Off on every way out: stray reports would otherwise land in the shell as text.
  const mouse = createMouseReporting(process.stdout, wantsMouse(options.mouse, process.env, process.stdout.isTTY === true && process.stdin.isTTY === true));
  const mouseOff = () => mouse.stop();
  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    stopping ??= (async () => {
      mouse.stop();
      const clean = await stopGateway(reason);
      model.dispose();
      untuneHeap();
      await link.close();
      app.unmount();
      // Past the deadline, parts still running (a run waiting for a full disk) would keep the process alive.
      if (!clean) process.exit(1);
    })();
    return stopping;
  };
  const view = () => <App model={model} link={link} local={local} copy={copyToClipboard} openUrl={openUrlWhenDisplayed} openEditor={(file) => mouse.paused(() => openInEditor(file))} onQuit={() => void shutdown('operator quit')}
    {...(options.firstRun ? { firstNotice: `First run: created ${home.configFile} with a demo route, /webhooks/demo (more when you quit). ? for keys.` } : {})} />;
  const app = render(view(), { exitOnCtrlC: false, alternateScreen: true, maxFps: 30, interactive: terminalIsInteractive() });
  const onSignal = (signal: NodeJS.Signals) => void shutdown(`${signal} received`);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  process.once('SIGINT', onSignal); // `kill -INT` from elsewhere; Ctrl-C at the keyboard is a key in raw mode
  process.once('exit', mouseOff);
  mouse.start();
  setImmediate(() => startGateway?.()); // after the first frame is written
  try {
    await app.waitUntilExit();
  } finally {
    mouse.stop();
  }
  await stopping;
  process.off('SIGTERM', onSignal);
  process.off('SIGHUP', onSignal);
  process.off('SIGINT', onSignal);
  process.off('exit', mouseOff);
  if (startFailure) throw startFailure.error;
  return 0;
}

/** A browser for OAuth login only where there is a display (never over plain SSH or in CI). */
function openUrlWhenDisplayed(url: string): boolean {
  if (!canOpenBrowser()) return false;
  openBrowser(url);
  return true;
}
