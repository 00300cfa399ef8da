import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** config.schema.json sits at the package root, two levels above both source/config and dist/config. */
export const schemaPath = fileURLToPath(new URL('../../config.schema.json', import.meta.url));

let cached: Record<string, unknown> | undefined;

export function loadSchema(): Record<string, unknown> {
  cached ??= JSON.parse(fs.readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
  return cached;
}

type SchemaNode = { description?: string; properties?: Record<string, SchemaNode>; additionalProperties?: SchemaNode | boolean; $ref?: string };

/**
 * What the schema says of the key at `segments` (through `$ref`s and named maps such as routes):
 * its description, and which segments name a map's entry (a route's or a server's name).
 */
export function schemaKey(segments: readonly string[]): { description?: string; entries: number[] } {
  const schema = loadSchema() as SchemaNode & { $defs?: Record<string, SchemaNode> };
  const resolve = (node: SchemaNode): SchemaNode => (node.$ref ? schema.$defs?.[node.$ref.replace('#/$defs/', '')] ?? {} : node);
  const entries: number[] = [];
  let node: SchemaNode | undefined = schema;
  for (const [index, segment] of segments.entries()) {
    const here: SchemaNode = resolve(node);
    node = here.properties?.[segment];
    if (!node && typeof here.additionalProperties === 'object') {
      node = here.additionalProperties;
      entries.push(index);
    }
    if (!node) return { entries };
  }
  return { ...(resolve(node).description ? { description: resolve(node).description } : {}), entries };
}
