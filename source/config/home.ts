import os from 'node:os';
import path from 'node:path';

/** Every path under $SWITCHBOARD_HOME, named once so nothing else builds them by hand. */
export interface HomeLayout {
  root: string;
  configFile: string;
  envFile: string;
  stateDb: string;
  lockFile: string;
  /** The running gateway's control channel (docs/control-protocol.md). */
  controlSocket: string;
  logsDir: string;
  gatewayLog: string;
  workspaceDir: string;
  skillsDir: string;
  /** Pid files of running pre-run scripts and gh children, reaped at the next gateway start. */
  childrenDir: string;
}

/**
 * `--home` wins, then $SWITCHBOARD_HOME, then ~/.switchboard. An empty value counts as none: an
 * exported but empty variable must not make the current folder the home (config.json and state.db
 * written wherever the command ran).
 */
export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): HomeLayout {
  const chosen = (flag || undefined) ?? (env.SWITCHBOARD_HOME || undefined) ?? path.join(os.homedir(), '.switchboard');
  return homeLayout(path.resolve(expandTilde(chosen)));
}

/**
 * `switchboard <args>` as the operator should type it for this home: with `--home` unless the home
 * is the one found without it (from $SWITCHBOARD_HOME or ~/.switchboard), so a hint copied as
 * printed acts on the same home.
 */
export function commandFor(home: HomeLayout, args: string): string {
  const root = /^[\w@%+=:,./-]+$/.test(home.root) ? home.root : `'${home.root.replaceAll("'", "'\\''")}'`;
  const homeFlag = home.root === resolveHome(undefined).root ? '' : `--home ${root}`;
  return ['switchboard', args, homeFlag].filter(Boolean).join(' ');
}

export function homeLayout(root: string): HomeLayout {
  const logsDir = path.join(root, 'logs');
  return {
    root,
    configFile: path.join(root, 'config.json'),
    envFile: path.join(root, '.env'),
    stateDb: path.join(root, 'state.db'),
    lockFile: path.join(root, 'gateway.lock'),
    controlSocket: path.join(root, 'control.sock'),
    logsDir,
    gatewayLog: path.join(logsDir, 'gateway.log'),
    workspaceDir: path.join(root, 'workspace'),
    skillsDir: path.join(root, 'skills'),
    childrenDir: path.join(root, 'run', 'children'),
  };
}

/** `~` and `~/x` expand to the user's home (certificate paths, spec 2.4). */
export function expandTilde(value: string, home: string = os.homedir()): string {
  if (value === '~') return home;
  if (value.startsWith('~/') || value.startsWith(`~${path.sep}`)) return path.join(home, value.slice(2));
  return value;
}
