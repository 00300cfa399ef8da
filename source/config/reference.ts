/** Renders config.schema.json as the README's configuration reference (one row per key). */
type Node = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Node>;
  additionalProperties?: Node | boolean;
  anyOf?: Node[];
  enum?: unknown[];
  items?: Node;
  $ref?: string;
};

export function configReference(schema: Node & { $defs?: Record<string, Node> }): string {
  const rows: string[] = ['| key | type | meaning |', '|---|---|---|'];
  const resolve = (node: Node): Node => (node.$ref ? schema.$defs![node.$ref.replace('#/$defs/', '')]! : node);
  const walk = (node: Node, path: string) => {
    for (const [key, raw] of Object.entries(node.properties ?? {})) {
      if (key === '$schema') continue;
      const child = resolve(raw);
      const keyPath = path === '' ? key : `${path}.${key}`;
      rows.push(`| \`${keyPath}\` | ${typeOf(child)} | ${escape(child.description ?? '')} |`);
      walk(child, keyPath);
      if (typeof child.additionalProperties === 'object' && child.additionalProperties.$ref) {
        const entry = resolve(child.additionalProperties);
        const placeholder = key === 'routes' ? '<route>' : key === 'mcp_servers' ? '<server>' : '<name>';
        walk(entry, `${keyPath}.${placeholder}`);
      }
    }
  };
  walk(schema, '');
  return rows.join('\n');
}

function typeOf(node: Node): string {
  if (node.enum) return node.enum.map((value) => `\`${String(value)}\``).join(' \\| ');
  if (node.anyOf) return node.anyOf.map(typeOf).join(' or ');
  if (node.type === 'array') return `list of ${node.items ? typeOf(node.items) : 'values'}`;
  if (node.type === 'object' && typeof node.additionalProperties === 'object' && !node.properties) return 'mapping';
  if (Array.isArray(node.type)) return node.type.join(' or ');
  return node.type ?? 'any';
}

function escape(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
