import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESKTOP_FILE_NAME, desktopEntry, registerLinkHandler } from '../../source/mcp/link-handler.js';
import { tempHome } from '../helpers/temp-home.js';

describe('switchboard:// handler registration', () => {
  it('writes a terminal .desktop entry for the scheme with the pinned Node and the CLI', () => {
    expect(desktopEntry({ nodePath: '/opt/sb/node_modules/node/bin/node', cliPath: '/opt/sb/dist/cli/main.js', home: '/home/op/my home' })).toBe([
      '[Desktop Entry]',
      'Type=Application',
      'Name=Switchboard MCP install',
      'Comment=Confirm and install an MCP server from a switchboard:// link',
      'Exec=/opt/sb/node_modules/node/bin/node /opt/sb/dist/cli/main.js --home "/home/op/my home" mcp install %u',
      'Terminal=true',
      'NoDisplay=true',
      'MimeType=x-scheme-handler/switchboard;',
      '',
    ].join('\n'));
  });

  it('installs it under XDG_DATA_HOME on Linux and says what is left when xdg tools are missing', async () => {
    const dataHome = path.join(tempHome().root, 'share');
    const result = await registerLinkHandler({ nodePath: '/n', cliPath: '/c.js', platform: 'linux', env: { XDG_DATA_HOME: dataHome } });
    expect(result.kind).toBe('registered');
    const file = path.join(dataHome, 'applications', DESKTOP_FILE_NAME);
    expect(result).toMatchObject({ file });
    expect(fs.readFileSync(file, 'utf8')).toContain('Exec=/n /c.js mcp install %u');
    if (result.kind === 'registered') {
      for (const note of result.notes) expect(note).toMatch(/xdg-mime|update-desktop-database/);
    }
  });

  it('prints instructions on other systems', async () => {
    const mac = await registerLinkHandler({ nodePath: '/n', cliPath: '/c.js', platform: 'darwin' });
    expect(mac).toMatchObject({ kind: 'instructions', text: expect.stringContaining('/n /c.js mcp install <link>') });
    const windows = await registerLinkHandler({ nodePath: 'n', cliPath: 'c.js', platform: 'win32' });
    expect(windows).toMatchObject({ kind: 'instructions', text: expect.stringContaining('HKEY_CURRENT_USER\\Software\\Classes\\switchboard') });
  });
});
