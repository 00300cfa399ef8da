import { Box, Text } from 'ink';
import type { McpServerStatus } from '../../mcp/connection.js';
import type { ConsoleGateway, ConsoleState } from '../console-model.js';
import { ListView, type ListRow } from '../components/ListView.js';
import type { EditTarget } from '../forms/edit-target.js';
import { fit } from '../format.js';
import { theme } from '../theme.js';

const statusColor: Record<McpServerStatus, string> = {
  ready: theme.ok, connecting: theme.warn, reconnecting: theme.warn, degraded: theme.warn, recycled: theme.warn, failed: theme.error, disabled: theme.dim, 'needs-login': theme.warn,
};

/** Configured MCP servers: status, era, transport, tools; Enter lists the tools and the stderr tail; R reconnects; l logs in (OAuth). */
export function McpPane({ state, gateway, height, width, focused, onNotice, onEdit, onLogin }: {
  state: ConsoleState; gateway: Pick<ConsoleGateway, 'mcp'>; height: number; width: number; focused: boolean; onNotice: (text: string) => void; onEdit: (target: EditTarget) => void; onLogin: (server: string) => void;
}) {
  const nameWidth = Math.min(24, Math.max(8, ...state.mcpServers.map((server) => server.name.length)));
  const rows: ListRow[] = state.mcpServers.map((server) => {
    const toolCount = `${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}`;
    return {
      key: server.name,
      text: '',
      parts: [
        { text: `${server.name.padEnd(nameWidth)} ` },
        { text: `● ${server.status.padEnd(12)} `, color: statusColor[server.status] },
        { text: `${(server.era ?? '-').padEnd(7)} ${server.transport.padEnd(6)} ${toolCount.padEnd(9)}` },
        { text: server.reason ? ` ${server.reason}` : '', dim: true },
      ],
    };
  });
  return (
    <ListView
      rows={rows} height={height} width={width} focused={focused} scopes={['mcp']}
      empty="No MCP servers. Add one with: switchboard mcp add <name> --command <cmd> [--arg A]... (or --url <URL>); the console connects it within seconds."
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
        void gateway.mcp.reconnect(row.key).then((ok) => onNotice(ok ? `Reconnecting ${row.key}: its status shows here as it changes.` : `No MCP server named ${row.key} any more; /reload-mcp rereads config.json.`));
      }}
      details={(row) => {
        const server = state.mcpServers.find((candidate) => candidate.name === row.key);
        if (!server) return <Text>{row.key} is gone (removed by a reload).</Text>;
        const stderr = gateway.mcp.stderrTail(server.name, server.status === 'ready' ? 3 : 8);
        const lines: Array<{ text: string; color?: string; dim?: boolean }> = [
          { text: `${server.name}: ${server.status}${server.reason ? ` - ${server.reason}` : ''}`, color: statusColor[server.status] },
          { text: `transport ${server.transport} · era ${server.era ?? '-'}${server.protocolVersion ? ` · protocol ${server.protocolVersion}` : ''}`, dim: true },
          ...(stderr.length > 0 ? [{ text: 'stderr (last lines):', color: server.status === 'failed' ? theme.error : undefined }, ...stderr.map((line) => ({ text: `  ${line}`, dim: true }))] : []),
          { text: server.tools.length > 0 ? `Tools (${server.tools.length}):` : 'No tools registered.' },
          ...server.tools.map((tool) => ({ text: `  ${tool.name}${tool.readOnly ? '  [read-only]' : ''}${tool.utility ? '  [utility]' : ''}`, color: tool.readOnly ? theme.ok : undefined })),
        ];
        return (
          <Box flexDirection="column">
            {lines.slice(0, Math.max(1, height - 1)).map((line, index) => <Text key={index} color={line.color} dimColor={line.dim}>{fit(line.text, width)}</Text>)}
            <Text color={theme.dim}>{fit('Esc back · R reconnect · l login · e edit', width)}</Text>
          </Box>
        );
      }}
    />
  );
}
