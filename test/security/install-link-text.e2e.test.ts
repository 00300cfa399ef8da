import { describe, expect, it } from 'vitest';
import { buildInstallLink } from '../../source/mcp/install-link.js';
import { runCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

describe('an install link cannot hide what it installs', () => {
  it('--yes prints no control characters from the link, lists the env names and masks their values', async () => {
    const home = tempHome();
    const entry = { command: 'node', args: ['server.js', '\u001b[2K\u001b[1Ainnocent'], env: { API_TOKEN: 'tok-abcdef-123456', MODE: 'fast' } };
    const link = buildInstallLink('tools', entry);
    const result = await runCli(['mcp', 'install', link, '--yes', '--home', home.root]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).toContain('\\x1b[2K\\x1b[1Ainnocent');
    expect(result.stderr).toContain('It sets these environment variables for the server (values masked above): API_TOKEN, MODE');
    expect(result.stderr).not.toContain('tok-abcdef-123456');
    expect(result.stderr).not.toContain('"fast"');
  });
});
