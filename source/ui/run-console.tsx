import { render } from 'ink';
import type { HomeLayout } from '../config/home.js';
import type { ResolvedConfig } from '../config/load.js';
import { createGateway } from '../gateway/gateway.js';
import { canOpenBrowser, openBrowser } from '../infra/browser.js';
import { copyToClipboard } from '../infra/clipboard.js';
import { openInEditor } from '../infra/editor.js';
import { createLogger } from '../infra/logger.js';
import { openStore } from '../store/database.js';
import { App } from './App.js';
import { createConsoleModel } from './console-model.js';
import { createLogRing } from '../infra/log-ring.js';
import { terminalIsInteractive } from './terminal.js';

/**
 * The console: the gateway in-process, logs to gateway.log and an in-memory ring (only Ink writes
 * to the terminal), one ordered shutdown on q / Ctrl-C / SIGTERM: intake first, then the rest,
 * then unmount. Returns the exit code.
 */
export async function runConsole(home: HomeLayout, config: ResolvedConfig): Promise<number> {
  const logRing = createLogRing();
  const { logger, close: closeLog } = createLogger({ file: home.gatewayLog, level: config.logLevel, mode: 'console', sink: logRing.stream });
  const store = openStore(home.stateDb);
  const gateway = createGateway({ config, store, logger, mode: 'console' });
  await gateway.start();
  const model = createConsoleModel({ gateway, logRing });

  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    stopping ??= (async () => {
      await gateway.stop(reason);
      model.dispose();
      app.unmount();
    })();
    return stopping;
  };
  const app = render(<App model={model} gateway={gateway} copy={copyToClipboard} openUrl={openUrlWhenDisplayed} openEditor={(file) => openInEditor(file)} onQuit={() => void shutdown('operator quit')} />, { exitOnCtrlC: false, alternateScreen: true, maxFps: 30, interactive: terminalIsInteractive() });
  const onSignal = (signal: NodeJS.Signals) => void shutdown(`${signal} received`);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  await app.waitUntilExit();
  await stopping;
  process.off('SIGTERM', onSignal);
  process.off('SIGHUP', onSignal);
  store.close();
  closeLog();
  return 0;
}

/** A browser for OAuth login only where there is a display (never over plain SSH or in CI). */
function openUrlWhenDisplayed(url: string): boolean {
  if (!canOpenBrowser()) return false;
  openBrowser(url);
  return true;
}
