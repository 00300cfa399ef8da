import type { HomeLayout } from '../config/home.js';
import { GATEWAY_HEAP, tuneHeap } from '../infra/heap-tuning.js';
import { startHomeGateway, type HomeGateway } from '../operations/host.js';
import { ensureConfig } from './context.js';
import { reportError, say } from './output.js';
import { version } from './version.js';

/**
 * The signals that stop the gateway in order. SIGHUP too: closing the terminal (or its tmux
 * session) then stops it as Ctrl-C does, instead of killing it with its lock and socket left
 * behind. Node resets every signal to its default at start, so nohup's "ignore SIGHUP" never
 * reached a Node process anyway; to outlive a terminal, run it under a service manager or `setsid`.
 */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * `switchboard gateway`: the core without a UI, serving its operations and events on the home's
 * control socket. Runs until SIGINT, SIGTERM or SIGHUP, then shuts down in order
 * (intake first). A second signal during shutdown exits at once.
 */
export async function runHeadlessGateway(home: HomeLayout, homeFlag: string | undefined): Promise<number> {
  let gateway: HomeGateway;
  tuneHeap(GATEWAY_HEAP);
  try {
    ensureConfig(home, homeFlag);
    gateway = await startHomeGateway(home, { mode: 'headless', version });
  } catch (error) {
    return reportError(error);
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    for (const each of STOP_SIGNALS) process.once(each, () => resolve(each));
  });
  const force = () => {
    say('Second signal: exiting without a clean shutdown.');
    process.exit(130);
  };
  for (const each of STOP_SIGNALS) process.once(each, force);
  // Past the shutdown deadline, parts still running (a run waiting for a full disk) would keep the process alive.
  if (!(await gateway.stop(`${signal} received`))) process.exit(1);
  return 0;
}
