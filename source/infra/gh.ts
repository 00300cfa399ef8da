import { recordChild } from './child-records.js';
import { guardProcessGroup } from './process-group.js';

export type GhResult = { ok: true; output: string } | { ok: false; reason: string };

interface GhInput {
  repo: string;
  prNumber: number;
  body: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** `<home>/run/children`: each gh child is recorded there while it runs (reaped after a gateway crash). */
  childrenDir?: string;
}

/**
 * `gh pr comment` with the body on stdin (argv, no shell). Checks first that gh exists and is
 * logged in, so the operator is told exactly which of the two is wrong.
 */
export async function ghPrComment(input: GhInput): Promise<GhResult> {
  const version = await gh(['--version'], input);
  if ((version as { code?: string }).code === 'ENOENT' || version.failed && version.exitCode === undefined) {
    return { ok: false, reason: 'gh (GitHub CLI) is not installed or not on PATH; install it on the gateway host, or use deliver: log' };
  }
  const auth = await gh(['auth', 'status'], input);
  if (auth.exitCode !== 0) {
    const detail = String(auth.stderr || auth.stdout).trim().split('\n')[0] ?? '';
    return { ok: false, reason: `gh is not logged in (gh auth status: ${detail || `exit code ${auth.exitCode}`}); run "gh auth login" on the gateway host` };
  }
  const comment = await gh(['pr', 'comment', String(input.prNumber), '--repo', input.repo, '--body-file', '-'], input, input.body);
  if (comment.timedOut) return { ok: false, reason: `gh pr comment timed out after ${input.timeoutMs / 1000} s` };
  if (comment.exitCode !== 0) return { ok: false, reason: `gh pr comment failed (exit code ${comment.exitCode}): ${String(comment.stderr).trim().slice(0, 300)}` };
  return { ok: true, output: String(comment.stdout).trim() };
}

/** One gh child in its own process group: the timeout kills the group, and a pid file outlives a gateway crash. */
async function gh(args: string[], input: GhInput, stdinText?: string) {
  const { execa } = await import('execa'); // loaded on first use, like every execa caller
  const child = execa('gh', args, {
    reject: false, env: input.env, extendEnv: input.env === undefined, detached: true,
    ...(stdinText === undefined ? { stdin: 'ignore' as const } : { input: stdinText }),
  });
  const forget = recordChild(input.childrenDir, child.pid, `gh ${args.slice(0, 2).join(' ')}`);
  const guard = guardProcessGroup(child, { timeoutMs: input.timeoutMs });
  try {
    const result = await child;
    return Object.assign(result, { timedOut: guard.state.timedOut });
  } finally {
    guard.release();
    forget();
  }
}
