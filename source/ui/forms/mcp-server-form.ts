import { formatKeyPath } from '../../config/key-path.js';
import type { Operations } from '../../operations/index.js';
import { configEntryForm } from './config-entry-form.js';
import type { EditForm } from './edit-form.js';

/** `e` on an MCP server: every key of `$defs/mcp_server` that applies to its transport (the schema marks them `stdio:` / `HTTP:`). */
export async function mcpServerForm(ops: Operations, name: string): Promise<EditForm | { error: string }> {
  const url = await ops.config.get({ key: formatKeyPath(['mcp_servers', name, 'url']) }).then(() => true, () => false);
  return configEntryForm(ops, {
    segments: ['mcp_servers', name],
    definition: 'mcp_server',
    title: `Edit MCP server "${name}" (${url ? 'HTTP' : 'stdio'}) · empty = default`,
    applies: (_key, description) => !description.startsWith(url ? 'stdio:' : 'HTTP:'),
  });
}
