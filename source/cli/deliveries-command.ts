import { Command } from './commander.js';
import type { OutputDeliveryView } from '../operations/deliveries.js';
import { MAX_ROWS } from '../operations/params.js';
import { wholeNumber } from './number-options.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';

/** `switchboard deliveries`: where outputs went, every attempt, and a retry for the failed ones. */
export function deliveriesCommand(): Command {
  const deliveries = new Command('deliveries').description('Outputs sent to targets: history, attempts and retries');

  deliveries
    .command('list')
    .description('Recent deliveries, newest first')
    .option('--failed', 'only failed ones')
    .option('--limit <n>', 'how many', wholeNumber(MAX_ROWS), 50)
    .option('--json', 'machine-readable output, attempts included')
    .action((options: { failed?: boolean; limit: number; json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const rows = await operations.deliveries.list({ failed: options.failed === true, limit: options.limit });
      if (options.json) return print(JSON.stringify(rows, undefined, 2));
      if (rows.length === 0) return say(options.failed ? 'No failed deliveries.' : 'No deliveries yet.');
      for (const row of rows) print(describeDelivery(row));
    }));

  deliveries
    .command('retry <id>')
    .description('Send a failed delivery again (id or its first characters); resumes at the first part that did not go out')
    .action((id: string, _options, command: Command) => withOperations(command, async ({ operations }) => {
      const result = await operations.deliveries.retry({ id });
      if ('alreadyDelivered' in result) say(`Nothing to retry: ${id} was already delivered`);
      else if ('busy' in result) {
        say(`Not sent: ${result.reason}; see it with switchboard deliveries list`);
        process.exitCode = 1;
      } else if (result.ok) say(`Delivered: ${result.detail}`);
      else {
        say(`Still failing: ${result.reason}`);
        process.exitCode = 1;
      }
    }));

  return deliveries;
}

/** One row of `deliveries list`: an uncertain row's reason is in `error`, as a failed one's. */
export function describeDelivery(row: OutputDeliveryView): string {
  const when = new Date(row.updatedAtMs).toISOString().replace('T', ' ').slice(0, 19);
  const parts = row.chunksTotal > 1 ? ` ${row.chunksSent}/${row.chunksTotal} parts` : '';
  const outcome = row.status === 'failed' || row.status === 'uncertain' ? row.error : row.detail;
  // Every row says how many tries it took: a file or log line is one, a chat's retries and `deliveries retry` add theirs.
  return `${row.id.slice(0, 8)}  ${row.status.padEnd(9)} ${row.target}  ${row.title}  ${when}  ${row.attempts.length} attempt(s)${parts}\n          ${outcome ?? ''}`;
}
