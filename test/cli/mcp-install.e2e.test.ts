import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildInstallLink } from '../../source/mcp/install-link.js';
import { runCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

const serversIn = (configFile: string) => JSON.parse(fs.readFileSync(configFile, 'utf8')).mcp_servers;

describe('switchboard mcp install / link', () => {
  it('writes nothing without an explicit yes, never overwrites, and round-trips through mcp link', async () => {
    const home = tempHome();
    const servers = () => serversIn(home.configFile);
    const entry = { command: 'node', args: ['server.js', '--port', '0'], env: { API_KEY: '${API_KEY}' } };
    const link = buildInstallLink('local-tools', entry);

    const unconfirmed = await runCli(['mcp', 'install', link, '--home', home.root]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('CAUTION: this server runs a program on this machine, with your rights:\n  node server.js --port 0');
    expect(unconfirmed.stderr).toContain('Nothing was written: installing needs a confirmation');
    expect(servers()).toEqual({});

    const installed = await runCli(['mcp', 'install', link, '--yes', '--home', home.root]);
    expect(installed.code).toBe(0);
    expect(installed.stderr).toContain(`Installed MCP server "local-tools" in ${home.configFile}.`);
    expect(servers()).toEqual({ 'local-tools': entry });

    const again = await runCli(['mcp', 'install', link, '--yes', '--home', home.root]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('An MCP server named "local-tools" already exists; it is never overwritten');
    const renamed = await runCli(['mcp', 'install', link, '--yes', '--name', 'local-tools-2', '--home', home.root]);
    expect(renamed.code).toBe(0);
    expect(Object.keys(servers())).toEqual(['local-tools', 'local-tools-2']);

    const shared = await runCli(['mcp', 'link', 'local-tools', '--home', home.root]);
    expect(shared.stdout.trim()).toBe(link);
  });

  it('rejects bad links with their reason and refuses to put literal secrets in a shared link', async () => {
    const home = tempHome();
    const bad = await runCli(['mcp', 'install', 'switchboard://mcp/install?name=x&config=' + Buffer.from('{"url":"ftp://x"}').toString('base64url'), '--yes', '--home', home.root]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Install link rejected (invalid_url): url must be an http:// or https:// address (got "ftp://x")');
    await runCli(['config', 'set', 'mcp_servers', JSON.stringify({ gh: { url: 'https://api.example/mcp', headers: { Authorization: 'Bearer ghp_literal' } } }), '--home', home.root]);
    const refused = await runCli(['mcp', 'link', 'gh', '--home', home.root]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('mcp_servers.gh holds literal secrets (headers.Authorization)');
    expect(refused.stdout).toBe('');
    expect((await runCli(['mcp', 'link', 'gh', '--include-secrets', '--home', home.root])).stdout).toContain('switchboard://mcp/install?name=gh&config=');
    expect((await runCli(['mcp', 'link', 'nope', '--home', home.root])).stderr).toContain('No MCP server named "nope"');
  });
});
