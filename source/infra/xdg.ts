/** Runs a desktop integration tool (xdg-mime, update-desktop-database); a missing tool is an ordinary outcome. */
export async function runDesktopTool(command: string, args: string[]): Promise<{ ok: true } | { ok: false; reason: string }> {
  const { execa } = await import('execa'); // loaded on first use
  const result = await execa(command, args, { reject: false, stdin: 'ignore', timeout: 10_000 });
  if ((result as { code?: string }).code === 'ENOENT') return { ok: false, reason: `${command} is not installed` };
  if (result.exitCode !== 0) return { ok: false, reason: `${command} ${args.join(' ')} failed: ${String(result.stderr).trim() || `exit code ${result.exitCode}`}` };
  return { ok: true };
}
