import { formatKeyPath } from '../../config/key-path.js';
import type { ConfigIssue } from '../../config/validate.js';
import type { Operations } from '../../operations/index.js';
import type { EditForm } from './edit-form.js';
import { describeApplied } from './edit-form.js';
import { definitionFields, entryFromValues, issuesByField } from './schema-fields.js';

/** An operation's refusal as config issues: its details are `key.path: reason` lines. */
export function issuesOf(error: unknown): ConfigIssue[] {
  const details = (error as { details?: string[] }).details ?? [];
  if (details.length === 0) return [{ path: '', reason: (error as Error).message }];
  return details.map((detail) => {
    const at = detail.indexOf(': ');
    return at < 0 ? { path: '', reason: detail } : { path: detail.slice(0, at), reason: detail.slice(at + 2) };
  });
}

/**
 * A form over one config.json entry (an MCP server, a static route): fields from its schema
 * definition; saving goes through `config.set`, which checks the whole file as the gateway does at
 * start, writes it and applies the change live.
 */
export async function configEntryForm(ops: Operations, options: {
  segments: string[]; definition: 'mcp_server' | 'route'; title: string; applies?: (key: string, description: string) => boolean;
}): Promise<EditForm | { error: string }> {
  const where = formatKeyPath(options.segments);
  const entry = await ops.config.get({ key: where }).then((found) => found.value, () => undefined);
  if (entry === null || typeof entry !== 'object') return { error: `${where} is not in config.json (any more); nothing to edit.` };
  const old = entry as Record<string, unknown>;
  const fields = definitionFields(options.definition, old, options.applies);
  return {
    title: options.title,
    fields,
    async save(values) {
      try {
        const applied = await ops.config.set({ key: where, value: entryFromValues(fields, values, old), by: 'console' });
        return { ok: true, notice: describeApplied(`Saved ${where}`, applied) };
      } catch (error) {
        return { ok: false, errors: issuesByField(issuesOf(error), options.segments, fields) };
      }
    },
  };
}
