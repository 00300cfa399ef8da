import type { ConfigApplied } from '../../gateway/config-commands.js';
import type { FieldErrors, FormField } from '../../operations/form-fields.js';

/** What `e` opens: a title, the field list of one kind of entry, and how its values are applied through the core. */
export interface EditForm {
  title: string;
  fields: FormField[];
  save(values: Record<string, unknown>): Promise<EditOutcome>;
}

export type EditOutcome = { ok: true; notice: string } | { ok: false; errors: FieldErrors };

/** One line about an applied config change: what was reloaded, what waits for a restart. */
export function describeApplied(what: string, applied: ConfigApplied): string {
  if (applied.changed.length === 0) return `${what}: nothing changed.`;
  const parts: string[] = [];
  if (applied.mcp) {
    const { added, changed, removed, warnings } = applied.mcp;
    const moved = [...added.map((name) => `added ${name}`), ...changed.map((name) => `reconnecting ${name}`), ...removed.map((name) => `removed ${name}`)];
    parts.push(`MCP ${moved.length > 0 ? moved.join(', ') : 'already up to date (the config watch got there first)'}${warnings.length > 0 ? ` (${warnings.join('; ')})` : ''}`);
  }
  if (applied.routes) {
    const { added, changed, removed } = applied.routes;
    parts.push(`routes: ${[...added.map((name) => `added ${name}`), ...changed.map((name) => `updated ${name}`), ...removed.map((name) => `removed ${name}`)].join(', ') || 'unchanged'}`);
  }
  if (applied.restartNeeded.length > 0) parts.push(`restart to apply ${applied.restartNeeded.join(', ')}`);
  return `${what}: ${applied.changed.join(', ')} changed${parts.length > 0 ? `; ${parts.join('; ')}` : ''}.`;
}
