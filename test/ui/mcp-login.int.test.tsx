import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../source/config/types.js';
import { renderConsole } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { approveInBrowser, startOAuthPeers, type OAuthPeers } from '../helpers/oauth.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

/** The console over a gateway whose one MCP server (`secure`) takes only the local authorization server's tokens. */
async function consoleWithOAuthServer() {
  const peers: OAuthPeers = await startOAuthPeers();
  closers.push(() => peers.close());
  const view = await renderConsole({
    edit: (config) => { config.mcp_servers = { secure: { url: peers.mcpUrl, auth: 'oauth', connect_timeout: 10, timeout: 10 } as McpServerConfig }; },
  });
  closers.push(view.close);
  view.stdin.write('1');
  await waitForFrame(view.lastFrame, (f) => /secure\s+● needs-login/.test(f), 20_000);
  return view;
}

/** Pastes text into the focused input in one chunk (as a terminal delivers a paste), waits for it to show, then presses Enter. */
async function paste(stdin: { write(data: string): void }, lastFrame: () => string | undefined, text: string) {
  const before = lastFrame();
  stdin.write(text);
  await waitForFrame(lastFrame, (f) => f !== before && f.includes(text.slice(0, 20)));
  stdin.write(keys.enter);
}

describe('MCP login from the console (l)', () => {
  it('shows the authorization address, takes the pasted redirect, stores the tokens and the server comes back ready', async () => {
    const { lastFrame, stdin, opened, home } = await consoleWithOAuthServer();
    stdin.write('l');
    await waitForFrame(lastFrame, (f) => f.includes('Log in to secure (OAuth)') && f.includes('A browser opened at this address'), 20_000);
    expect(opened).toHaveLength(1);
    expect(lastFrame()).toMatch(/Waiting up to 5 minutes for the redirect to http:\/\/127\.0\.0\.1:\d+\/callback/);

    // The browser is on another machine: it ends at the redirect address, which the operator pastes (one chunk, like a paste).
    const redirected = await approveInBrowser(opened[0]!);
    await paste(stdin, lastFrame, 'http://127.0.0.1:1/not-this-one?code=x&state=y');
    await waitForFrame(lastFrame, (f) => f.includes('Not accepted:'));
    await paste(stdin, lastFrame, redirected);
    await waitForFrame(lastFrame, (f) => f.includes('Logged in to secure; the access token expires at'), 20_000);
    await waitForFrame(lastFrame, (f) => /secure\s+● ready/.test(f), 20_000);

    const tokenFile = path.join(home.root, 'mcp-tokens', 'secure.json');
    expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(lastFrame()).not.toContain((JSON.parse(fs.readFileSync(tokenFile, 'utf8')) as { access_token: string }).access_token);
  });

  it('Esc cancels the login: nothing stored, the server still needs a login', async () => {
    const { lastFrame, stdin, home } = await consoleWithOAuthServer();
    stdin.write('l');
    await waitForFrame(lastFrame, (f) => f.includes('Paste the address'), 20_000);
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => f.includes('Login to secure cancelled; nothing was stored.'));
    expect(lastFrame()).toMatch(/secure\s+● needs-login/);
    expect(fs.existsSync(path.join(home.root, 'mcp-tokens', 'secure.json'))).toBe(false);
  });
});
