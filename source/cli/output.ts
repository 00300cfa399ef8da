
/** Where `say` prints while questions are open at the terminal (the latest one's), see terminal-questions.ts. */
const printersAbove: Array<(line: string) => void> = [];

/** Commands print results on stdout and everything meant for the operator's eyes on stderr. */
export function say(line = ''): void {
  const above = printersAbove.at(-1);
  if (above) above(line);
  else process.stderr.write(`${line}\n`);
}

/** Makes `say` print through `print` (above an open question) until the returned function is called. */
export function sayingAbove(print: (line: string) => void): () => void {
  printersAbove.push(print);
  return () => {
    const at = printersAbove.indexOf(print);
    if (at >= 0) printersAbove.splice(at, 1);
  };
}

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** The exit code of a mistake in the command line itself (README, "Exit codes"); any other failure is 1. */
export const USAGE_EXIT_CODE = 2;

/** A mistake in the command line that a command's own checks find (commander finds the others): `error: ...`, exit 2. */
export class UsageError extends Error {
  constructor(message: string, readonly details: string[] = [], readonly hint?: string) {
    super(message);
  }
}

/** What every operator-facing error carries: a message, perhaps details and a hint (ConfigError, OperatorError, the lock's error). */
interface Explained {
  message: string;
  hint?: string;
  details?: string[];
}

function isExplained(error: unknown): error is Explained {
  return error instanceof Error && (typeof (error as Explained).hint === 'string' || Array.isArray((error as Explained).details));
}

/** A readable error for the operator: what, where, what next. Returns the exit code. */
export function reportError(error: unknown): number {
  if (isExplained(error) || error instanceof UsageError) {
    say(`error: ${error.message}`);
    for (const detail of error.details ?? []) say(`  - ${detail}`);
    if (error.hint) say(`  ${error.hint}`);
    return error instanceof UsageError ? USAGE_EXIT_CODE : 1;
  }
  say(`error: ${(error as Error)?.stack ?? String(error)}`);
  return 1;
}
