import { Text } from 'ink';
import type { McpServerStatus } from '../../mcp/connection.js';
import type { McpServerView } from '../../mcp/manager.js';
import { skippedLine } from '../../operations/mcp-skipped-line.js';
import type { Operations } from '../../operations/index.js';
import type { ConsoleState } from '../console-model.js';
import { useFetched } from '../hooks/useFetched.js';
import { ScrollText, type TextLine } from '../components/ScrollText.js';
import { ListView, type ListRow, type PaneFilter } from '../components/ListView.js';
import type { EditTarget } from '../forms/edit-target.js';
import { column } from '../format.js';
import { theme } from '../theme.js';

/** What `field:value` can name in this pane's filter. */
const mcpFields = ['name', 'status', 'transport', 'trust', 'era'];

const statusColor: Record<McpServerStatus, string | undefined> = {
  ready: theme.ok, connecting: theme.warn, reconnecting: theme.warn, degraded: theme.warn, recycled: theme.warn, failed: theme.error, disabled: theme.dim, 'needs-login': theme.warn,
};

/** Configured MCP servers in name order (not the order their status changed): status, era, transport, tools; Enter lists the tools and the stderr tail; R reconnects; l logs in (OAuth). */
export function McpPane({ state, ops, height, width, focused, onNotice, onEdit, onLogin, ...filter }: PaneFilter & {
  state: ConsoleState; ops: Operations; height: number; width: number; focused: boolean; onNotice: (text: string) => void; onEdit: (target: EditTarget) => void; onLogin: (server: string) => void;
}) {
  const nameWidth = Math.min(24, Math.max(8, ...state.mcpServers.map((server) => server.name.length)));
  const rows: ListRow[] = state.mcpServers.toSorted((a, b) => a.name.localeCompare(b.name)).map((server) => {
    const toolCount = `${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}`;
    return {
      key: server.name,
      text: '',
      fields: { name: server.name, status: server.status, transport: server.transport, trust: server.trust, era: server.era ?? '' },
      parts: [
        { text: `${column(server.name, nameWidth)} ` },
        { text: `● ${server.status.padEnd(12)} `, color: statusColor[server.status] },
        { text: `${column(server.era ?? '-', 7)} ${column(server.transport, 6)} ${column(toolCount, 9)}` },
        { text: server.reason ? ` ${server.reason}` : '', dim: true },
      ],
    };
  });
  return (
    <ListView
      rows={rows} height={height} width={width} focused={focused} scopes={['mcp']} title="MCP servers" {...filter} fields={mcpFields}
      empty="No MCP servers. Add one with: switchboard mcp add <name> --command <cmd> [--arg A]... (or --url <URL>); the gateway connects it within seconds."
      onCommand={(command, row) => {
        if (command === 'mcp.login') {
          const server = state.mcpServers.find((candidate) => candidate.name === row?.key);
          if (!server) return onNotice('No MCP server selected.');
          return server.oauth ? onLogin(server.name) : onNotice(`${server.name} does not use OAuth: set mcp_servers.${server.name}.auth to "oauth" on an HTTP (url) server (e edits it), then l logs in.`);
        }
        if (command === 'item.edit') return row ? onEdit({ kind: 'mcp', name: row.key }) : onNotice('No MCP server selected.');
        if (command !== 'mcp.reconnect') return;
        if (!row) return onNotice('No MCP server selected.');
        onNotice(`Reconnecting ${row.key}...`);
        void ops.mcp.reconnect({ server: row.key }).then(
          () => onNotice(`Reconnecting ${row.key}: its status shows here as it changes.`),
          (error: unknown) => onNotice(`${(error as Error).message}; /reload-mcp rereads config.json.`));
      }}
      details={(row) => {
        const server = state.mcpServers.find((candidate) => candidate.name === row.key);
        if (!server) return <Text>{row.key} is gone (removed by a reload).</Text>;
        return <McpDetails server={server} ops={ops} height={height} width={width} focused={focused} />;
      }}
    />
  );
}

/** Enter on a server: status, trust, the stderr tail (read through operations), every tool with its whole description, and the tools skipped for a name clash. */
function McpDetails({ server, ops, height, width, focused }: { server: McpServerView; ops: Operations; height: number; width: number; focused: boolean }) {
  const stdio = server.transport === 'stdio';
  const fetched = useFetched(() => (stdio ? ops.mcp.stderr({ server: server.name, lines: server.status === 'ready' ? 3 : 8 }) : Promise.resolve({ server: server.name, lines: [] })), server.name, server.updatedAtMs);
  const stderr = fetched.value?.lines ?? [];
  const lines: TextLine[] = [
    { text: `${server.name}: ${server.status}${server.reason ? ` - ${server.reason}` : ''}`, color: statusColor[server.status] },
    { text: `transport ${server.transport} · era ${server.era ?? '-'}${server.protocolVersion ? ` · protocol ${server.protocolVersion}` : ''} · trust ${server.trust}${server.trust === 'untrusted' ? ' (tools that are not read-only ask for approval)' : ''}`, dim: true },
    ...(stderr.length > 0 ? [{ text: 'stderr (last lines):', color: server.status === 'failed' ? theme.error : undefined }, ...stderr.map((line) => ({ text: `  ${line}`, dim: true }))] : []),
    { text: server.tools.length > 0 ? `Tools (${server.tools.length}):` : 'No tools registered.' },
    ...server.tools.flatMap((tool) => [
      { text: `  ${tool.name}${tool.readOnly ? '  [read-only]' : ''}${tool.utility ? '  [utility]' : ''}`, color: tool.readOnly ? theme.ok : undefined },
      ...(tool.description ? tool.description.split('\n').map((text) => ({ text: `      ${text}`, dim: true })) : []),
    ]),
    ...server.skipped.map((tool) => ({ text: `  ${skippedLine(tool)}`, color: theme.warn })),
  ];
  return <ScrollText lines={lines} height={height} width={width} focused={focused} hint="Esc back · R reconnect · l login · e edit" />;
}
