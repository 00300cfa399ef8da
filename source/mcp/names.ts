import type { McpToolPolicy } from './server-config.js';

/** Spec 2.5: every character outside `[A-Za-z0-9_]` becomes `_`. */
export function sanitizeName(part: string): string {
  return part.replace(/[^A-Za-z0-9_]/g, '_');
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`;
}

/** fnmatch-style: `*` any run, `?` one character, `[abc]` / `[!abc]` sets; everything else literal. */
export function fnmatch(name: string, pattern: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) {
        source += '\\[';
        continue;
      }
      let set = pattern.slice(i + 1, end);
      const negate = set.startsWith('!');
      if (negate) set = set.slice(1);
      source += `[${negate ? '^' : ''}${set.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's').test(name);
}

/** Spec 2.2 rules 1-4: include wins (an empty include registers none), else exclude, over original names. */
export function isToolSelected(original: string, policy: Pick<McpToolPolicy, 'include' | 'exclude'>): boolean {
  if (policy.include !== undefined) return policy.include.some((pattern) => fnmatch(original, pattern));
  if (policy.exclude !== undefined) return !policy.exclude.some((pattern) => fnmatch(original, pattern));
  return true;
}
