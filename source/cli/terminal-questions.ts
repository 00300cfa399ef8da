import { clearScreenDown, cursorTo, moveCursor } from 'node:readline';
import readline from 'node:readline/promises';
import { sayingAbove } from './output.js';

/** One question at the terminal: the line typed, undefined when the questions were ended (the signal). */
export type Ask = (prompt: string) => Promise<string | undefined>;

/**
 * Questions asked at the terminal on `input`, prompts on stderr. Readline gives a question one line; the
 * other lines of a paste arrive while no question is pending, so they wait here and answer the next
 * questions in order, as a shell takes them. While a question is open at a terminal, what `say` prints
 * goes above its prompt, which is drawn again below with what was typed so far.
 */
export function terminalQuestions(input: NodeJS.ReadableStream) {
  const output = process.stderr;
  const terminal = readline.createInterface({ input, output });
  // At a terminal readline takes Ctrl-C as a key: it means what it means everywhere (run cancels the run).
  terminal.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  // Between questions there is no prompt: a line typed ahead is echoed from the start of its row.
  terminal.setPrompt('');
  const typedAhead: string[] = [];
  terminal.on('line', (line) => {
    typedAhead.push(line);
    // Readline has echoed it on rows of its own: it is shown after the prompt it answers instead.
    if (terminal.terminal) {
      moveCursor(output, 0, -Math.max(1, Math.ceil(line.length / (output.columns || Infinity))));
      clearScreenDown(output);
    }
  });
  const printAbove = (line: string) => {
    const rows = terminal.getCursorPos().rows;
    moveCursor(output, 0, -rows);
    cursorTo(output, 0);
    clearScreenDown(output);
    // As many rows again as the prompt took: prompt(true) goes up that many before drawing it.
    output.write(`${line}\n${'\n'.repeat(rows)}`);
    terminal.prompt(true);
  };
  return {
    async ask(prompt: string, signal: AbortSignal): Promise<string | undefined> {
      if (signal.aborted) return undefined;
      const ahead = typedAhead.shift();
      if (ahead !== undefined) {
        output.write(`${prompt}${ahead}\n`);
        return ahead;
      }
      const stopPrintingAbove = terminal.terminal ? sayingAbove(printAbove) : () => {};
      try {
        return await terminal.question(prompt, { signal });
      } catch {
        return undefined;
      } finally {
        stopPrintingAbove();
      }
    },
    close: () => terminal.close(),
  };
}

export type TerminalQuestions = ReturnType<typeof terminalQuestions>;

/**
 * The questions of several requests at one terminal, one request at a time: a run that asks for two
 * approvals at once (parallel tool calls) gets the second's questions once the first is answered,
 * instead of two readers on the same keys. One interface serves the requests that wait one after
 * the other (lines pasted for the next request's questions carry over), and is closed when none is
 * left, so the terminal is not read between requests.
 */
export function terminalTurns(input: NodeJS.ReadableStream) {
  let terminal: TerminalQuestions | undefined;
  let waiting = 0;
  let last: Promise<unknown> = Promise.resolve();
  return {
    /** Runs `work` with the terminal once the requests before it are done. */
    take<T>(work: (questions: TerminalQuestions) => Promise<T>): Promise<T> {
      waiting += 1;
      const turn = last.then(async () => {
        terminal ??= terminalQuestions(input);
        try {
          return await work(terminal);
        } finally {
          waiting -= 1;
          if (waiting === 0) {
            terminal.close();
            terminal = undefined;
          }
        }
      });
      last = turn.catch(() => undefined);
      return turn;
    },
  };
}
