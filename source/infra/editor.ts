export type EditorResult = { ok: true } | { ok: false; reason: string };

/**
 * Opens `$EDITOR` (else `vi`) on a file with the terminal handed over (stdio inherited): call it
 * only while Ink is suspended. `$EDITOR` may carry arguments (`code -w`).
 */
export async function openInEditor(file: string, env: NodeJS.ProcessEnv = process.env): Promise<EditorResult> {
  const { execa, parseCommandString } = await import('execa'); // loaded on first use, like every execa caller
  const editor = env.EDITOR?.trim() || 'vi';
  const [command, ...args] = parseCommandString(editor);
  try {
    await execa(command!, [...args, file], { stdio: 'inherit', env });
    return { ok: true };
  } catch (error) {
    const failed = error as { exitCode?: number; code?: string; shortMessage?: string };
    if (failed.code === 'ENOENT') return { ok: false, reason: `the editor "${command}" was not found: set EDITOR to an installed editor` };
    return { ok: false, reason: failed.exitCode !== undefined ? `the editor "${editor}" exited with code ${failed.exitCode}` : (failed.shortMessage ?? String(error)) };
  }
}
