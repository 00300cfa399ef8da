/** What the CLI's arguments name, read before commander loads (main.ts needs it before any import). */

/** The command `argv` names: its first word that is not an option or the value of `--home` / `--connect`. */
export function commandName(argv: readonly string[]): string | undefined {
  return argv.find((arg, index) => !arg.startsWith('-') && argv[index - 1] !== '--home' && argv[index - 1] !== '--connect');
}

/** `--help` or `--version` anywhere: commander answers them. */
export function asksForInfo(argv: readonly string[]): boolean {
  return argv.some((arg) => ['-h', '--help', '-v', '--version'].includes(arg));
}

/** True when these arguments run the headless gateway: `gateway`, or no command and no terminal for the console. */
export function runsHeadlessGateway(argv: readonly string[], terminal: () => boolean): boolean {
  const command = commandName(argv);
  if (asksForInfo(argv)) return false;
  return command === 'gateway' || (command === undefined && !terminal());
}
