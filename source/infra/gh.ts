export type GhResult = { ok: true; output: string } | { ok: false; reason: string };

/**
 * `gh pr comment` with the body on stdin (argv, no shell). Checks first that gh exists and is
 * logged in, so the operator is told exactly which of the two is wrong.
 */
export async function ghPrComment(input: { repo: string; prNumber: number; body: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<GhResult> {
  const { execa } = await import('execa'); // loaded on first use, like every execa caller
  const options = { reject: false, timeout: input.timeoutMs, env: input.env, extendEnv: input.env === undefined } as const;
  const version = await execa('gh', ['--version'], { ...options, stdin: 'ignore' });
  if ((version as { code?: string }).code === 'ENOENT' || version.failed && version.exitCode === undefined) {
    return { ok: false, reason: 'gh (GitHub CLI) is not installed or not on PATH; install it on the gateway host, or use deliver: log' };
  }
  const auth = await execa('gh', ['auth', 'status'], { ...options, stdin: 'ignore' });
  if (auth.exitCode !== 0) {
    const detail = String(auth.stderr || auth.stdout).trim().split('\n')[0] ?? '';
    return { ok: false, reason: `gh is not logged in (gh auth status: ${detail || `exit code ${auth.exitCode}`}); run "gh auth login" on the gateway host` };
  }
  const comment = await execa('gh', ['pr', 'comment', String(input.prNumber), '--repo', input.repo, '--body-file', '-'], { ...options, input: input.body });
  if (comment.timedOut) return { ok: false, reason: `gh pr comment timed out after ${input.timeoutMs / 1000} s` };
  if (comment.exitCode !== 0) return { ok: false, reason: `gh pr comment failed (exit code ${comment.exitCode}): ${String(comment.stderr).trim().slice(0, 300)}` };
  return { ok: true, output: String(comment.stdout).trim() };
}
