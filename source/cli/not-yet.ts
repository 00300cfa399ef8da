import type { Command } from 'commander';
import { say } from './output.js';

/** Commands a later issue delivers. They say so plainly instead of pretending. */
const upcoming: ReadonlyArray<{ name: string; summary: string; arrives: string }> = [
  { name: 'webhook', summary: 'Dynamic webhook subscriptions, tests, deliveries and replays', arrives: 'the webhook platform' },
];

export function addUpcomingCommands(program: Command): void {
  for (const entry of upcoming) {
    program
      .command(entry.name)
      .description(`${entry.summary} (not available yet)`)
      .allowUnknownOption()
      .allowExcessArguments()
      .helpOption(false)
      .action(() => {
        say(`switchboard ${entry.name} is not available yet: it arrives with ${entry.arrives}.`);
        process.exitCode = 2;
      });
  }
}
