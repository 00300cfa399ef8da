import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { parseInstallLink, buildInstallLink, type InstallLink } from '../../source/mcp/install-link.js';
import { InstallConfirmation, type InstallDecision } from '../../source/ui/components/InstallConfirmation.js';
import { InputRouter } from '../../source/ui/input-router.js';
import { keys, waitForFrame } from '../helpers/ink.js';

function linkFor(name: string, config: Record<string, unknown>): InstallLink {
  const parsed = parseInstallLink(buildInstallLink(name, config));
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

function show(link: InstallLink, existing: string[] = []) {
  const decisions: InstallDecision[] = [];
  const view = render(<InputRouter><InstallConfirmation link={link} existingNames={existing} onDecision={(decision) => decisions.push(decision)} /></InputRouter>);
  return { ...view, decisions };
}

describe('install confirmation dialog', () => {
  it('shows the name and config of a remote server and installs on y', async () => {
    const { lastFrame, stdin, decisions } = show(linkFor('docs', { url: 'https://docs.example/mcp' }));
    const frame = await waitForFrame(lastFrame, (f) => f.includes('Install MCP server "docs" (remote URL)?'));
    expect(frame).toContain('"url": "https://docs.example/mcp"');
    expect(frame).not.toContain('CAUTION');
    stdin.write('y');
    await expect.poll(() => decisions).toEqual([{ action: 'install', name: 'docs' }]);
  });

  it('puts an unmissable caution with the exact command line on a command server, and cancels on n or Esc', async () => {
    const { lastFrame, stdin, decisions } = show(linkFor('fs', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/op'] }));
    const frame = await waitForFrame(lastFrame, (f) => f.includes('CAUTION'));
    expect(frame).toContain('CAUTION: this server runs a program on this machine, with your rights:');
    expect(frame).toContain('npx -y @modelcontextprotocol/server-filesystem /home/op');
    stdin.write('n');
    await expect.poll(() => decisions).toEqual([{ action: 'cancel' }]);
    const again = show(linkFor('fs', { command: 'x' }));
    await waitForFrame(again.lastFrame, (f) => f.includes('CAUTION'));
    again.stdin.write(keys.escape);
    await expect.poll(() => again.decisions).toEqual([{ action: 'cancel' }]);
  });

  it('never overwrites an existing name: asks for a new one, refusing taken or invalid names', async () => {
    const { lastFrame, stdin, decisions } = show(linkFor('github', { url: 'https://x.example/mcp' }), ['github', 'github2']);
    await waitForFrame(lastFrame, (f) => f.includes('already exists and will not be overwritten') && f.includes('New name:'));
    stdin.write('a/b');
    await waitForFrame(lastFrame, (f) => f.includes('New name: a/b'));
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (f) => f.includes('A name is 1-64 characters'));
    for (let i = 0; i < 3; i++) {
      stdin.write('\u007F');
      await waitForFrame(lastFrame, (f) => f.includes(`New name: ${'a/b'.slice(0, 2 - i)}`));
    }
    stdin.write('github2');
    await waitForFrame(lastFrame, (f) => f.includes('New name: github2'));
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (f) => f.includes('"github2" exists too; it will not be overwritten'));
    stdin.write('-work');
    await waitForFrame(lastFrame, (f) => f.includes('New name: github2-work'));
    expect(decisions).toEqual([]);
    stdin.write(keys.enter);
    await expect.poll(() => decisions).toEqual([{ action: 'install', name: 'github2-work' }]);
  });

  it('installs under another name on r even when the name is free', async () => {
    const { lastFrame, stdin, decisions } = show(linkFor('docs', { url: 'https://x.example/mcp' }));
    await waitForFrame(lastFrame, (f) => f.includes('r install under another name'));
    stdin.write('r');
    await waitForFrame(lastFrame, (f) => f.includes('New name: docs'));
    stdin.write('-2');
    await waitForFrame(lastFrame, (f) => f.includes('New name: docs-2'));
    stdin.write(keys.enter);
    await expect.poll(() => decisions).toEqual([{ action: 'install', name: 'docs-2' }]);
  });
});
