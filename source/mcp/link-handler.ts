import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runDesktopTool } from '../infra/xdg.js';

export const DESKTOP_FILE_NAME = 'switchboard-mcp-install.desktop';
const SCHEME_MIME = 'x-scheme-handler/switchboard';

/**
 * The .desktop entry that makes `switchboard://` links open `switchboard mcp install <link>` in a
 * terminal (Terminal=true), with the pinned Node and this installation's CLI.
 */
export function desktopEntry(input: { nodePath: string; cliPath: string; home?: string }): string {
  const words = [input.nodePath, input.cliPath, ...(input.home ? ['--home', input.home] : []), 'mcp', 'install'];
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Switchboard MCP install',
    'Comment=Confirm and install an MCP server from a switchboard:// link',
    `Exec=${words.map(desktopQuote).join(' ')} %u`,
    'Terminal=true',
    'NoDisplay=true',
    `MimeType=${SCHEME_MIME};`,
    '',
  ].join('\n');
}

/** Desktop Entry spec quoting: arguments with reserved characters go in double quotes, with \\ " ` $ escaped. */
function desktopQuote(word: string): string {
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(word)) return word.replaceAll('%', '%%');
  return `"${word.replace(/(["`$\\])/g, '\\$1').replaceAll('%', '%%')}"`;
}

export type RegisterResult =
  | { kind: 'registered'; file: string; notes: string[] }
  | { kind: 'instructions'; text: string };

/** Linux: write the .desktop file and make it the scheme's default handler. Elsewhere: say what to do. */
export async function registerLinkHandler(input: { nodePath: string; cliPath: string; home?: string; platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv }): Promise<RegisterResult> {
  const platform = input.platform ?? process.platform;
  if (platform !== 'linux') {
    return { kind: 'instructions', text: otherSystems(platform, `${input.nodePath} ${input.cliPath} mcp install <link>`) };
  }
  const env = input.env ?? process.env;
  const dataHome = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  const dir = path.join(dataHome, 'applications');
  const file = path.join(dir, DESKTOP_FILE_NAME);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, desktopEntry(input));
  const notes: string[] = [];
  const mime = await runDesktopTool('xdg-mime', ['default', DESKTOP_FILE_NAME, SCHEME_MIME]);
  if (!mime.ok) notes.push(`${mime.reason}; to finish by hand run: xdg-mime default ${DESKTOP_FILE_NAME} ${SCHEME_MIME}`);
  const database = await runDesktopTool('update-desktop-database', [dir]);
  if (!database.ok) notes.push(`${database.reason} (optional: some desktops need it to notice the new handler)`);
  return { kind: 'registered', file, notes };
}

function otherSystems(platform: NodeJS.Platform, command: string): string {
  if (platform === 'darwin') {
    return `macOS registers URL schemes through an application bundle (CFBundleURLTypes in Info.plist), which Switchboard does not ship. Until then, copy the link and run:\n  ${command}`;
  }
  if (platform === 'win32') {
    return `On Windows, register the scheme under HKEY_CURRENT_USER\\Software\\Classes\\switchboard with "URL Protocol" and a shell\\open\\command of:\n  ${command.replace('<link>', '"%1"')}`;
  }
  return `Automatic registration is only built for Linux desktops. Open links by running:\n  ${command}`;
}
