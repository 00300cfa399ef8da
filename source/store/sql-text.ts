/**
 * Text for a LIKE pattern with `\` as its escape (`LIKE ? || '%' ESCAPE '\'`): its own `%` and `_`
 * match only themselves. Ids operators type are prefixes, not patterns.
 */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);
