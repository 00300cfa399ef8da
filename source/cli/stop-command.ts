import type { HomeLayout } from '../config/home.js';
import { isAlive } from '../infra/process-alive.js';
import { gatewayOnHome } from '../operations/connect.js';
import { OperatorError } from '../operations/errors.js';
import { print, reportError, say } from './output.js';

/** A gateway's own shutdown deadline is 10 s (runs cancelled, intake closed); this leaves it room. */
const STOP_WAIT_MS = 15_000;
const POLL_MS = 50;

/**
 * `switchboard stop`: stops the gateway running on this home as SIGTERM does (in order, intake
 * first; a console that runs it in-process quits), and waits until its process has ended. Stopping where nothing runs is not an error (as
 * `systemctl stop`). Signals reach only this machine, so it works on this home, not over `--connect`.
 */
export async function stopGateway(home: HomeLayout): Promise<number> {
  try {
    const found = await gatewayOnHome(home);
    if (!found) {
      print(`No gateway is running on ${home.root}`);
      return 0;
    }
    const pid = 'hello' in found ? found.hello.pid : found.locked.pid;
    const what = 'hello' in found && found.hello.mode === 'console' ? `the console running the gateway (pid ${pid})` : `the gateway (pid ${pid})`;
    try {
      process.kill(pid, 'SIGTERM');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ESRCH') {
        print(`No gateway is running on ${home.root}`);
        return 0;
      }
      throw new OperatorError('unavailable', `Could not signal ${what} on ${home.root}: ${code ?? String(error)}`, code === 'EPERM' ? 'It runs as another user: stop it as that user.' : undefined);
    }
    say(`Stopping ${what}...`);
    const deadline = Date.now() + STOP_WAIT_MS;
    while (Date.now() < deadline) {
      if (!isAlive(pid)) {
        print(`Stopped ${what} on ${home.root}`);
        return 0;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new OperatorError('unavailable', `${capitalised(what)} did not stop within ${STOP_WAIT_MS / 1000} s`, `It may be stuck past its own shutdown deadline; its log says where. To end it at once: kill -9 ${pid}`);
  } catch (error) {
    return reportError(error);
  }
}

const capitalised = (text: string) => text[0]!.toUpperCase() + text.slice(1);
