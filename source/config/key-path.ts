/**
 * Config key paths as operators type them: `platforms.webhook.extra.port`, with brackets for
 * names that hold dots: `mcp_servers["my.server"].url`.
 */
export function formatKeyPath(segments: readonly string[]): string {
  let out = '';
  for (const segment of segments) {
    if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(root)' : out;
}

/** Inverse of formatKeyPath; undefined when the text is not a key path. */
export function parseKeyPath(text: string): string[] | undefined {
  const segments: string[] = [];
  const token = /\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/y;
  let index = 0;
  while (index < text.length) {
    token.lastIndex = index;
    const match = token.exec(text);
    if (!match || (match[1] !== undefined && index === 0 && text[0] === '.')) return undefined;
    segments.push(match[1] ?? match[2] ?? JSON.parse(`"${match[3]}"`));
    index = token.lastIndex;
  }
  return segments.length > 0 ? segments : undefined;
}

/** JSON pointer (`/a/b~1c`) to segments. */
export function pointerToSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}
