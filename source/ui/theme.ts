/** Colours by meaning, so panes agree on what green or red says. */
export const theme = {
  ok: 'green',
  warn: 'yellow',
  error: 'red',
  dim: 'gray',
  accent: 'cyan',
  caution: 'red',
} as const;

/** Whether the console draws without colour: `NO_COLOR` set to anything but '' (no-color.org) or `--no-color`. */
export function wantsNoColor(env: NodeJS.ProcessEnv, noColorFlag = false): boolean {
  return noColorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

/**
 * Turns colour off for Ink when asked to. Call it before Ink loads: its chalk reads FORCE_COLOR once,
 * at import (and reads `--no-color` from argv itself, but not NO_COLOR).
 */
export function applyColorChoice(env: NodeJS.ProcessEnv, noColorFlag = false): void {
  if (wantsNoColor(env, noColorFlag)) env.FORCE_COLOR = '0';
}
