import { parse as parseYaml, YAMLParseError } from 'yaml';

/** What a SKILL.md says: its front matter's `name` and `description` (both optional), then the body. */
export interface SkillFile {
  name?: string;
  description?: string;
  body: string;
}

export type SkillFileParse = { ok: true; value: SkillFile } | { ok: false; reason: string };

const DELIMITER = '---';

/**
 * Splits a SKILL.md into front matter and body. A file that does not start with a `---` line has no
 * front matter: all of it is the body. A front matter that is there but broken is a reason naming
 * the line (counted in the file): never opened, never closed, not YAML, not `key: value` lines, or a
 * `name` or `description` that is not text. Other keys are allowed (other tools' skill metadata).
 */
export function parseSkillFile(text: string): SkillFileParse {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]!.trimEnd() !== DELIMITER) return { ok: true, value: { body: text.trim() } };
  const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === DELIMITER);
  if (close < 0) return { ok: false, reason: 'front matter opened by "---" on line 1 is never closed: add a line "---" after it' };
  let meta: unknown;
  try {
    meta = parseYaml(lines.slice(1, close).join('\n'));
  } catch (error) {
    return { ok: false, reason: `front matter is not valid YAML${yamlErrorPlace(error)}` };
  }
  if (meta === null || meta === undefined) meta = {};
  if (typeof meta !== 'object' || Array.isArray(meta)) {
    return { ok: false, reason: `front matter is not "key: value" lines (name, description) but ${Array.isArray(meta) ? 'a list' : `the ${typeof meta} ${JSON.stringify(meta)}`}` };
  }
  const fields = meta as Record<string, unknown>;
  const value: SkillFile = { body: lines.slice(close + 1).join('\n').trim() };
  for (const key of ['name', 'description'] as const) {
    if (!Object.hasOwn(fields, key)) continue;
    const field = fields[key];
    if (typeof field !== 'string' || field.trim() === '') {
      return { ok: false, reason: `front matter "${key}" must be text${field === null || field === '' ? ', not empty' : `, not ${JSON.stringify(field)}`} (leave the line out to use the default)` };
    }
    value[key] = field.trim();
  }
  return { ok: true, value };
}

/** ` on line N: what` for the YAML parser's error, N counted in the file (the front matter starts on line 2). */
function yamlErrorPlace(error: unknown): string {
  const message = (error as Error).message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const line = error instanceof YAMLParseError ? error.linePos?.[0]?.line : undefined;
  return `${line !== undefined ? ` on line ${line + 1}` : ''}: ${message}`;
}
