import readline from 'node:readline';
import type { Command } from './commander.js';
import { canOpenBrowser, openBrowser } from '../infra/browser.js';
import { checkClientMetadataUrl, checkMetadataDocument, clientMetadataDocument, startServerLogin } from '../operations/mcp-oauth.js';
import { homeOf } from './context.js';
import { print, say, UsageError } from './output.js';

/** `mcp login`, `mcp client-metadata`, `mcp check-metadata` (spec 3.2, 4.2, 5.3). */
export function addOAuthCommands(mcp: Command): void {
  mcp
    .command('login <server>')
    .description('OAuth login for an auth: oauth server: prints the authorization URL, opens a browser when there is a display, accepts the pasted redirect URL; clears an earlier refusal of the client metadata document')
    .option('--no-browser', 'only print the URL, never open a browser')
    .action(async (name: string, options: { browser: boolean }, command: Command) => {
      const home = homeOf(command);
      const controller = new AbortController();
      const login = await startServerLogin(home, name, {
        signal: controller.signal,
        onWarning: (text) => say(`warning: ${text}`),
        onNotice: (text) => say(text),
        onUrl: (url, listener) => {
          say(`Authorize Switchboard for ${name} in a browser:`);
          say(`  ${url}`);
          say(`Waiting for the redirect to ${listener.redirectUrl}${listener.pinned ? '' : ` (random port: ${listener.randomBecause ?? 'set by oauth.redirect_port or oauth.redirect_uri'})`}.`);
          say('On another machine, paste the address the browser ends up at (it contains code= and state=) and press Enter.');
          if (options.browser && canOpenBrowser()) openBrowser(url);
        },
      });
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      const input = readline.createInterface({ input: process.stdin, terminal: false });
      input.on('line', (line) => {
        if (line.trim() === '') return;
        const offered = login.offer(line);
        if (!offered.ok) say(`That redirect URL was not accepted: ${offered.reason}`);
      });
      try {
        const result = await login.done;
        if (result.notNeeded) {
          say(`server ${name} answered without asking for authorization: nothing to log in.`);
          return;
        }
        const expiry = result.expiresAt ? `the access token expires at ${result.expiresAt} (in ${minutesUntil(result.expiresAt)} minutes)` : 'the server gave no expiry for the access token';
        const { oauth } = login.server;
        say(`Logged in to ${name}: ${expiry}. Client identified by ${result.usedDocument ? `the client metadata document ${oauth?.clientMetadataUrl}` : oauth?.clientId ? 'the configured oauth.client_id' : 'dynamic client registration'}.`);
      } catch (error) {
        say(`error: ${(error as Error).message}`);
        process.exitCode = 1;
      } finally {
        process.off('SIGINT', onSigint);
        input.close();
        process.stdin.destroy();
      }
    });

  mcp
    .command('client-metadata')
    .description('Print the client metadata document to host at --url (spec 5.3): client_id = the URL, the ten loopback redirect URIs')
    .requiredOption('--url <url>', 'the HTTPS URL the document will be served at (oauth.client_metadata_url)')
    .option('--client-name <name>', 'client_name shown by the authorization server', 'Switchboard')
    .action((options: { url: string; clientName: string }) => {
      const checked = checkClientMetadataUrl(options.url);
      if (!checked.ok) throw new UsageError(`--url ${checked.reason} (spec 5.3: https, a path, no fragment, no userinfo, no . or .. segments)`);
      print(JSON.stringify(clientMetadataDocument(options.url, options.clientName), undefined, 2));
    });

  mcp
    .command('check-metadata <server>')
    .description("Fetch the server's oauth.client_metadata_url and check every requirement of spec 5.3 item 3")
    .option('--url <url>', 'check this document URL instead of the configured one')
    .option('--ca <file>', 'PEM CA bundle to trust for the document host (besides the system CAs)')
    .action(async (name: string, options: { url?: string; ca?: string }, command: Command) => {
      const { url, checks } = await checkMetadataDocument(homeOf(command), name, options);
      {
        print(`client metadata document ${url} (server ${name}):`);
        for (const c of checks) print(`  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.check}${c.detail ? `: ${c.detail}` : ''}`);
        const failed = checks.filter((c) => !c.ok).length;
        print(failed === 0 ? 'All checks passed.' : `${failed} of ${checks.length} checks failed. Fix the document (switchboard mcp client-metadata --url ${url} prints a correct one) or set mcp_servers.${name}.oauth.cimd to false.`);
        if (failed > 0) process.exitCode = 1;
      }
    });
}

function minutesUntil(iso: string): number {
  return Math.max(0, Math.round((Date.parse(iso) - Date.now()) / 60_000));
}

