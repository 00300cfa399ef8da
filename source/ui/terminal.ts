/**
 * Ink turns non-interactive (drawing only the final frame) when it sees a CI variable. An operator
 * at a real terminal gets the live console whatever the environment says: a TTY decides.
 */
export function terminalIsInteractive(): boolean {
  return process.stdout.isTTY === true;
}
