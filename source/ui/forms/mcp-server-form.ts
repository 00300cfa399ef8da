import type { ConfigCommands } from '../../gateway/config-commands.js';
import { configEntryForm } from './config-entry-form.js';
import type { EditForm } from './edit-form.js';

/** `e` on an MCP server: every key of `$defs/mcp_server` that applies to its transport (the schema marks them `stdio:` / `HTTP:`). */
export function mcpServerForm(config: Pick<ConfigCommands, 'read' | 'set'>, name: string): EditForm | { error: string } {
  let stdio: boolean;
  try {
    stdio = config.read().mcp_servers?.[name]?.url === undefined;
  } catch (error) {
    return { error: (error as Error).message };
  }
  return configEntryForm(config, {
    segments: ['mcp_servers', name],
    definition: 'mcp_server',
    title: `Edit MCP server "${name}" (${stdio ? 'stdio' : 'HTTP'}) · empty = default`,
    applies: (_key, description) => !description.startsWith(stdio ? 'HTTP:' : 'stdio:'),
  });
}
