/**
 * Shell commands that go to the approval queue under `agent.terminal.approval: dangerous`.
 * Matching is deliberately broad: a false alarm costs one keypress, a miss can cost a disk.
 * The README lists these patterns.
 */
export const dangerousPatterns: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'recursive delete', pattern: /\brm\s+(-[a-zA-Z]*[rR]|--recursive)|\brm\s+.*\s-[a-zA-Z]*[rR]\b|\bfind\b.*\s-delete\b|\brmdir\b/ },
  { name: 'privilege escalation', pattern: /(^|[;&|(\s])(sudo|su|doas|pkexec)(\s|$)/ },
  { name: 'pipe into a shell', pattern: /\|\s*(sudo\s+)?(sh|bash|zsh|dash|ksh|fish|python3?|perl|ruby|node)\b|\b(sh|bash|zsh)\s+-c\s+["']?\$\(|\beval\b|\bsource\s+<\(|\b(bash|sh)\s+<\(/ },
  { name: 'disk or device write', pattern: /\bdd\b|\bmkfs(\.\w+)?\b|\bfdisk\b|\bparted\b|\bwipefs\b|\bshred\b|>\s*\/dev\/(sd|nvme|hd|vd|disk|mmcblk)/ },
  { name: 'force push or history rewrite', pattern: /\bgit\s+push\b.*(\s-f\b|--force|\+\S+)|\bgit\s+reset\s+--hard\b|\bgit\s+clean\s+-[a-zA-Z]*f|\bgit\s+filter-(branch|repo)\b/ },
  { name: 'permission or ownership change', pattern: /\b(chmod|chown|chgrp|setfacl|chattr)\b/ },
  { name: 'credential files', pattern: /(~|\$HOME|\/root|\/home\/[^/\s]+)\/\.(ssh|aws|gnupg|kube|docker|netrc|git-credentials|npmrc|pypirc)|\bid_(rsa|ed25519|ecdsa|dsa)\b|\/etc\/(shadow|sudoers|passwd)|\.env\b|mcp-tokens|credentials\.json/ },
  { name: 'system power or process control', pattern: /\b(shutdown|reboot|halt|poweroff|systemctl|service|killall|pkill)\b|\bkill\s+-9\s+-1\b|:\(\)\s*\{/ },
  { name: 'writes to system paths', pattern: />>?\s*\/(etc|usr|bin|sbin|boot|lib|var\/lib)\// },
  { name: 'download and run', pattern: /\b(curl|wget)\b.*\|\s*\S|\b(curl|wget)\b.*(-o|-O|--output)\s*\S+\s*(&&|;)\s*(sh|bash|chmod|\.\/)/ },
];

/** The names of the patterns a command matches; empty when none does. */
export function dangerousReasons(command: string): string[] {
  return dangerousPatterns.filter(({ pattern }) => pattern.test(command)).map(({ name }) => name);
}
