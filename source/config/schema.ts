import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** config.schema.json sits at the package root, two levels above both source/config and dist/config. */
export const schemaPath = fileURLToPath(new URL('../../config.schema.json', import.meta.url));

let cached: Record<string, unknown> | undefined;

export function loadSchema(): Record<string, unknown> {
  cached ??= JSON.parse(fs.readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
  return cached;
}
