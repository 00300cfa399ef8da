import { formatKeyPath } from '../../config/key-path.js';
import type { ConfigCommands } from '../../gateway/config-commands.js';
import type { EditForm } from './edit-form.js';
import { describeApplied } from './edit-form.js';
import { definitionFields, entryFromValues, issuesByField } from './schema-fields.js';

/**
 * A form over one config.json entry (an MCP server, a static route): fields from its schema
 * definition; saving validates the whole file, writes it and applies the change live (core command).
 */
export function configEntryForm(config: Pick<ConfigCommands, 'read' | 'set'>, options: {
  segments: string[]; definition: 'mcp_server' | 'route'; title: string; applies?: (key: string, description: string) => boolean;
}): EditForm | { error: string } {
  let entry: unknown;
  try {
    entry = options.segments.reduce<unknown>((node, segment) => (node as Record<string, unknown> | undefined)?.[segment], config.read());
  } catch (error) {
    return { error: (error as Error).message };
  }
  const where = formatKeyPath(options.segments);
  if (entry === null || typeof entry !== 'object') return { error: `${where} is not in config.json (any more); nothing to edit.` };
  const old = entry as Record<string, unknown>;
  const fields = definitionFields(options.definition, old, options.applies);
  return {
    title: options.title,
    fields,
    async save(values) {
      const result = await config.set(options.segments, entryFromValues(fields, values, old));
      if (!result.ok) return { ok: false, errors: issuesByField(result.issues, options.segments, fields) };
      return { ok: true, notice: describeApplied(`Saved ${where}`, result.value) };
    },
  };
}
