import { asksForInfo, commandName } from './command-line.js';
import { Command, CommanderError } from './commander.js';
import { commandFor, resolveHome } from '../config/home.js';
import { gatewayOnHome } from '../operations/connect.js';
import { OperatorError } from '../operations/errors.js';
import { ensureConfig, homeOf } from './context.js';
import { print, reportError, say, USAGE_EXIT_CODE } from './output.js';
import { connectTarget, type GlobalOptions } from './session.js';
import { loadYogaWithoutFetch, slimInkImports } from './slim-imports.js';
import { version } from './version.js';

/**
 * The command groups, each loaded when asked for: `cron list` loads the cron group only, not the
 * MCP, OAuth, webhook or run code of the others (each pulls in its own modules). Order is help's order.
 */
const commandGroups: Record<string, () => Promise<Command>> = {
  webhook: async () => (await import('./webhook-command.js')).webhookCommand(),
  config: async () => (await import('./config-command.js')).configCommand(),
  run: async () => (await import('./run-command.js')).runCommand(),
  approvals: async () => (await import('./approvals-command.js')).approvalsCommand(),
  skills: async () => (await import('./skills-command.js')).skillsCommand(),
  cron: async () => (await import('./cron-command.js')).cronCommand(),
  deliveries: async () => (await import('./deliveries-command.js')).deliveriesCommand(),
  mcp: async () => {
    const [{ mcpCommand }, { addOAuthCommands }, { addInstallLinkCommands }] = await Promise.all([import('./mcp-command.js'), import('./mcp-oauth-commands.js'), import('./mcp-install-commands.js')]);
    const mcp = mcpCommand();
    addOAuthCommands(mcp);
    addInstallLinkCommands(mcp);
    return mcp;
  },
};

/**
 * The command tree `argv` needs: no group for the console, `gateway` or `status`, the one group it
 * names, else the whole tree (help, `help <command>`, suggestions for a misspelt name).
 */
async function buildProgram(argv: string[]): Promise<Command> {
  const program = baseProgram();
  const named = commandName(argv);
  const groups = named === undefined && !asksForInfo(argv) ? []
    : named !== undefined && program.commands.some((command) => command.name() === named) ? []
      : named !== undefined && Object.hasOwn(commandGroups, named) ? [named] : Object.keys(commandGroups);
  for (const command of await Promise.all(groups.map((name) => commandGroups[name]!()))) program.addCommand(command);
  throwInsteadOfExiting(program);
  return program;
}

/**
 * commander exits the process on a usage error or `--help` unless told to throw, and a group made
 * with `new Command` does not inherit that from the program: every command of the tree is told.
 */
function throwInsteadOfExiting(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) throwInsteadOfExiting(sub);
}

function baseProgram(): Command {
  const program = new Command('switchboard')
    .description('Agent service: MCP servers, scheduled jobs and webhooks turned into agent runs, with a live operator console.')
    .version(version, '-v, --version')
    .option('--home <dir>', 'state and config folder (default: $SWITCHBOARD_HOME or ~/.switchboard)')
    .option('--connect <url>', 'reach a gateway over TCP (tcp://host:port; token from $SWITCHBOARD_CONTROL_TOKEN) instead of this home\'s socket')
    .option('--attach', 'the console only attaches to a running gateway (fails when none runs)')
    .option('--no-color', 'the console draws without colour (so does NO_COLOR)')
    .option('--no-mouse', 'the console leaves mouse reporting off: no wheel or clicks, the terminal selects text (so does SWITCHBOARD_NO_MOUSE=1)')
    .showSuggestionAfterError(true);

  program
    .command('gateway')
    .description('Run the gateway headless: webhook listener, scheduler, MCP connections; logs to stderr and logs/gateway.log')
    .action(async (_options, command: Command) => {
      process.exitCode = await runHeadlessGateway(homeOf(command), command.optsWithGlobals<{ home?: string }>().home);
    });

  program
    .command('console')
    .description('Open the operator console: attached to the gateway of this home when one runs, else with the gateway in-process (the default in a terminal)')
    .option('--attach', 'only attach to a running gateway (fails when none runs)')
    .action(async (_options, command: Command) => {
      process.exitCode = await openConsole(command);
    });

  program
    .command('status')
    .description('Say whether a gateway is running on this home, and how to reach it')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const home = homeOf(command);
      const found = await gatewayOnHome(home);
      const hello = found && 'hello' in found ? found.hello : undefined;
      const locked = found && 'locked' in found ? found.locked : undefined;
      // Loaded only for a running gateway: `status` of a stopped one stays as light as before.
      const cluster = hello ? await import('./cluster-status.js').then((module) => module.clusterOf(home)) : null;
      const configProblems = hello || locked ? (await import('../operations/config-on-disk.js')).problemsOnDisk(home) : [];
      const configLine = `  config    ${home.configFile} has ${configProblems.length} problem(s) the next start would refuse (the gateway keeps the config it loaded): ${configProblems[0]}; see ${commandFor(home, 'config validate')}`;
      if (options.json) {
        print(JSON.stringify({ home: home.root, running: Boolean(hello ?? locked), ...(hello ?? locked ?? {}), ...(locked ? { control: 'not answering' } : {}), ...(cluster ? { cluster } : {}), ...(configProblems.length > 0 ? { configProblems } : {}) }));
      } else if (hello) {
        print(`Gateway running: pid ${hello.pid} (${hello.mode}), version ${hello.version}${hello.startedAtMs ? `, since ${new Date(hello.startedAtMs).toISOString()}` : ''}`);
        if (hello.webhookUrl) print(`  webhooks  ${hello.webhookUrl}`);
        print(`  control   ${hello.socketPath}${hello.tcpUrl ? ` and ${hello.tcpUrl}` : ''}`);
        print(`  attach    ${commandFor(home, '--attach')}`);
        print(`  stop      ${commandFor(home, 'stop')}`);
        if (configProblems.length > 0) print(configLine);
        for (const line of (await import('./cluster-status.js')).clusterLines(cluster, home.root)) print(line);
      } else if (locked) {
        print(`Gateway running: pid ${locked.pid}, since ${locked.startedAt}, but its control socket ${home.controlSocket} does not answer (home ${home.root})`);
        if (configProblems.length > 0) print(configLine);
      } else {
        print(`No gateway is running on ${home.root}`);
        // A stopped cluster node has no view of the cluster of its own: the others' gateways do.
        const nodeId = (await import('../store/database-url.js')).formerNodeIdOf(home.root);
        if (nodeId) print(`  cluster   this home is node ${nodeId}; a running node lists the cluster: switchboard status --home <its home>`);
      }
    });

  program
    .command('stop')
    .description('Stop the gateway running on this home, in order (as SIGTERM does), and wait until it has stopped')
    .action(async (_options, command: Command) => {
      if (connectTarget(command)) {
        process.exitCode = reportError(new OperatorError('invalid', 'stop works on a gateway of this machine (--home), not over --connect', 'Run it on the gateway\'s machine.'));
        return;
      }
      const { stopGateway } = await import('./stop-command.js');
      process.exitCode = await stopGateway(homeOf(command));
    });
  return program;
}

/** Loaded on demand: config and status commands should not pay for Fastify and pino. */
async function runHeadlessGateway(...args: Parameters<typeof import('./gateway-command.js').runHeadlessGateway>): Promise<number> {
  const { runHeadlessGateway: run } = await import('./gateway-command.js');
  return run(...args);
}

/** Loaded on demand: the gateway command must never load React (STYLE.md section 1). */
async function openConsole(command: Command): Promise<number> {
  try {
    const options = command.optsWithGlobals<GlobalOptions & { attach?: boolean; color?: boolean; mouse?: boolean }>();
    const home = homeOf(command);
    const connect = connectTarget(command);
    const firstRun = !connect && !options.attach && ensureConfig(home, options.home);
    if (options.color === false) (await import('../ui/theme.js')).applyNoColorFlag(process.env, process.argv);
    slimInkImports();
    await loadYogaWithoutFetch();
    const { runConsole } = await import('../ui/run-console.js');
    return await runConsole({ home, version, ...(options.attach ? { attach: true } : {}), ...(connect ? { connect } : {}), ...(options.mouse === false ? { mouse: false } : {}), ...(firstRun ? { firstRun } : {}) });
  } catch (error) {
    return reportError(error);
  }
}

/**
 * `help <command> [<subcommand>]` is `<command> [<subcommand>] --help` (commander's own `help` stops
 * at the first word), and `help` of a command that does not exist runs that name, so commander says
 * "unknown command" with its suggestion instead of printing the whole help.
 */
function helpAsFlag(argv: string[]): string[] {
  if (commandName(argv) !== 'help') return argv;
  const at = argv.indexOf('help');
  const [before, rest] = [argv.slice(0, at), argv.slice(at + 1)];
  if (rest.length === 0) return [...before, '--help'];
  const known = rest[0]!.startsWith('-') || baseProgram().commands.some((command) => command.name() === rest[0]) || Object.hasOwn(commandGroups, rest[0]!);
  return known ? [...before, ...rest, '--help'] : [...before, ...rest];
}

/** Runs the CLI and returns the exit code. No command: the main job (the console in a terminal, else the headless gateway). */
export async function runCli(given: string[]): Promise<number> {
  const argv = helpAsFlag(given);
  const program = await buildProgram(argv);
  try {
    if (commandName(argv) === undefined && !asksForInfo(argv)) return await runMainJob(program, argv);
    await program.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (error) {
    // commander has printed its message: help and version end well, anything else it throws is a usage mistake.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
    return reportError(error);
  }
}

/** No command: the console in a terminal, else the headless gateway. */
async function runMainJob(program: Command, argv: string[]): Promise<number> {
  const { unknown } = program.parseOptions(argv);
  // parseOptions leaves unknown options to its caller (a full parse would have refused them).
  if (unknown.length > 0) program.error(`error: unknown option '${unknown[0]}'`, { code: 'commander.unknownOption' });
  const { home: homeFlag, attach, connect } = program.opts<GlobalOptions & { attach?: boolean }>();
  if (process.stdin.isTTY && process.stdout.isTTY) return openConsole(program);
  if (attach || connect) {
    say('error: attaching a console needs a terminal (run it in one, or use the CLI commands: switchboard status, cron list, ...).');
    return 1;
  }
  say('No terminal to draw the console in; running the headless gateway (switchboard gateway).');
  return runHeadlessGateway(resolveHome(homeFlag), homeFlag);
}
