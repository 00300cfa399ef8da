import { fileURLToPath } from 'node:url';
import type { Command } from './commander.js';
import { ConfigError } from '../config/errors.js';
import { maskSecrets } from '../config/mask.js';
import type { McpServerConfig } from '../config/types.js';
import { buildInstallLink, installSummary, parseInstallLink, registerLinkHandler, type InstallLink } from '../operations/mcp-links.js';
import { homeOf, loadConfigFor } from './context.js';
import { sayApplied } from './config-command.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';

/** `mcp install`, `mcp link`, `mcp register-handler` (spec 4.3). */
export function addInstallLinkCommands(mcp: Command): void {
  mcp
    .command('install <link>')
    .description('Install a server from a switchboard://mcp/install link, after one confirmation')
    .option('--yes', 'skip the dialog (the config and any command caution are still printed)')
    .option('--name <name>', 'install under this name instead of the one in the link')
    .action(async (text: string, options: { yes?: boolean; name?: string }, command: Command) => {
      const parsed = parseInstallLink(text);
      if (!parsed.ok) throw new ConfigError('INSTALL_LINK_REJECTED', `Install link rejected (${parsed.error.kind}): ${parsed.error.message}`, 'Nothing was written. Ask the sender for a new link.');
      const home = homeOf(command);
      const { file } = loadConfigFor(home, command.optsWithGlobals<{ home?: string }>().home);
      const existing = Object.keys(file.mcp_servers ?? {});
      const link = options.name ? { ...parsed.value, name: options.name } : parsed.value;
      const name = await decide(link, existing, options.yes === true);
      if (!name) {
        say('Cancelled; nothing was written.');
        process.exitCode = 1;
        return;
      }
      await withOperations(command, async (session) => {
        const changed = await session.operations.mcp.add({ name, entry: link.config, by: 'cli' });
        say(`Installed MCP server "${name}" in ${home.configFile}.`);
        sayApplied(session, changed);
      });
    });

  mcp
    .command('link <server>')
    .description('Print the install link of a configured server, to share it with a teammate')
    .option('--include-secrets', 'allow literal secret values (tokens, keys) into the link')
    .action((server: string, options: { includeSecrets?: boolean }, command: Command) => {
      const home = homeOf(command);
      const { file } = loadConfigFor(home, command.optsWithGlobals<{ home?: string }>().home);
      const entry = file.mcp_servers?.[server];
      if (!entry) throw new ConfigError('MCP_SERVER_UNKNOWN', `No MCP server named "${server}" in ${home.configFile}`, `Configured: ${Object.keys(file.mcp_servers ?? {}).join(', ') || '(none)'}`);
      const secrets = secretPaths(entry);
      if (secrets.length > 0 && !options.includeSecrets) {
        throw new ConfigError('LINK_HOLDS_SECRETS', `mcp_servers.${server} holds literal secrets (${secrets.join(', ')}); a link would hand them to whoever gets it`, 'Move them to ${VAR} references (values in $SWITCHBOARD_HOME/.env), or pass --include-secrets.');
      }
      print(buildInstallLink(server, entry));
    });

  mcp
    .command('register-handler')
    .description('Make switchboard:// links open the install confirmation in a terminal (Linux desktops; instructions elsewhere)')
    .action(async (_options, command: Command) => {
      const homeFlag = command.optsWithGlobals<{ home?: string }>().home;
      const result = await registerLinkHandler({ nodePath: process.execPath, cliPath: fileURLToPath(new URL('./main.js', import.meta.url)), home: homeFlag ? homeOf(command).root : undefined });
      if (result.kind === 'instructions') return say(result.text);
      say(`Registered the switchboard:// handler: ${result.file}`);
      for (const note of result.notes) say(`  note: ${note}`);
    });
}

/** The chosen name, or undefined when the operator cancels. Never an existing name. */
async function decide(link: InstallLink, existing: string[], yes: boolean): Promise<string | undefined> {
  if (yes || !process.stdin.isTTY) {
    const summary = installSummary(link);
    say(`Install MCP server "${summary.name}":`);
    for (const line of summary.config) say(line);
    if (summary.envNames.length > 0) say(`It sets these environment variables for the server (values masked above): ${summary.envNames.join(', ')}`);
    if (summary.command) say(`CAUTION: this server runs a program on this machine, with your rights:\n  ${summary.command}`);
    if (!yes) throw new ConfigError('CONFIRMATION_NEEDED', 'Nothing was written: installing needs a confirmation', 'Run it in a terminal to get the dialog, or read the config above and pass --yes.');
    if (existing.includes(link.name)) throw new ConfigError('MCP_SERVER_EXISTS', `An MCP server named "${link.name}" already exists; it is never overwritten`, 'Pass --name NEW to install it under another name.');
    return link.name;
  }
  const { confirmInstall } = await import('../ui/install-dialog.js');
  const decision = await confirmInstall(link, existing);
  return decision.action === 'install' ? decision.name : undefined;
}

/** Key paths of literal secret values in an entry (a `${VAR}` reference is not a secret). */
function secretPaths(entry: McpServerConfig): string[] {
  const masked = maskSecrets(entry);
  const paths: string[] = [];
  const walk = (original: unknown, hidden: unknown, at: string) => {
    if (original !== null && typeof original === 'object') {
      for (const key of Object.keys(original)) walk((original as Record<string, unknown>)[key], (hidden as Record<string, unknown>)[key], at ? `${at}.${key}` : key);
    } else if (original !== hidden) paths.push(at);
  };
  walk(entry, masked, '');
  return paths;
}
