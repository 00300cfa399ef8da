import { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { createDeliveryService } from '../delivery/deliver.js';
import { describeSubject } from '../delivery/log-target.js';
import type { OutputDelivery } from '../store/output-deliveries.js';
import { withCliCore } from './context.js';
import { print, say } from './output.js';

/** `switchboard deliveries`: where outputs went, every attempt, and a retry for the failed ones. */
export function deliveriesCommand(): Command {
  const deliveries = new Command('deliveries').description('Outputs sent to targets: history, attempts and retries');

  deliveries
    .command('list')
    .description('Recent deliveries, newest first')
    .option('--failed', 'only failed ones')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'machine-readable output, attempts included')
    .action((options: { failed?: boolean; limit: string; json?: boolean }, command: Command) => {
      withService(command, ({ history }) => {
        const rows = history!.recent({ failedOnly: options.failed === true, limit: Number(options.limit) || 50 });
        if (options.json) return print(JSON.stringify(rows.map(({ output: _output, ...row }) => row), undefined, 2));
        if (rows.length === 0) return say(options.failed ? 'No failed deliveries.' : 'No deliveries yet.');
        for (const row of rows) print(describe(row));
      });
    });

  deliveries
    .command('retry <id>')
    .description('Send a failed delivery again (id or its first characters); resumes at the first part that did not go out')
    .action(async (id: string, _options, command: Command) => {
      await withService(command, async (service) => {
        const found = service.history!.find(id);
        if (found === 'ambiguous') throw new ConfigError('DELIVERY_AMBIGUOUS', `"${id}" matches more than one delivery`, 'Type more characters of the id (switchboard deliveries list).');
        if (!found) throw new ConfigError('DELIVERY_NOT_FOUND', `No delivery with id "${id}"`, 'See them with: switchboard deliveries list --failed');
        const result = await service.retry(found.id);
        if (result.ok) say(`Delivered: ${result.detail}`);
        else {
          say(`Still failing: ${result.reason}`);
          process.exitCode = 1;
        }
      });
    });
  return deliveries;
}

function withService<T>(command: Command, work: (service: ReturnType<typeof createDeliveryService>) => T | Promise<T>): Promise<T> {
  return withCliCore(command, ({ home, logger, config, store }) => work(createDeliveryService({ homeRoot: home.root, logger, config: config.values, store })));
}

function describe(row: OutputDelivery): string {
  const when = new Date(row.updatedAtMs).toISOString().replace('T', ' ').slice(0, 19);
  const parts = row.chunksTotal > 1 ? ` ${row.chunksSent}/${row.chunksTotal} parts` : '';
  const outcome = row.status === 'failed' ? row.error : row.detail;
  return `${row.id.slice(0, 8)}  ${row.status.padEnd(9)} ${row.target}  ${describeSubject(row)}  ${when}  ${row.attempts.length} attempt(s)${parts}\n          ${outcome ?? ''}`;
}
