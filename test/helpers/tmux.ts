import { execFileSync } from 'node:child_process';

/**
 * A tmux server of the test's own (`-L name-pid`): never the operator's, never another test's.
 * `kill()` in an afterEach ends its sessions.
 */
export function tmuxServer(name: string) {
  const socket = `switchboard-${name}-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return {
    tmux,
    capture: (session: string) => tmux('capture-pane', '-p', '-t', session),
    send: (session: string, key: string) => tmux('send-keys', '-t', session, key),
    kill: () => {
      try { tmux('kill-server'); } catch { /* no server */ }
    },
  };
}
