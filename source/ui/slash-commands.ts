/** The console's command line: `/name rest`. Parsing only; App runs them against the core. */
export interface SlashCommand {
  name: string;
  usage: string;
  description: string;
}

export const slashCommands: readonly SlashCommand[] = [
  { name: 'run', usage: '/run <prompt>', description: 'run the agent now; the answer goes to the Output pane' },
  { name: 'install', usage: '/install <link>', description: 'install an MCP server from a switchboard://mcp/install link, after a confirmation' },
  { name: 'help', usage: '/help', description: 'list these commands' },
];

export function parseSlash(line: string): { name: string; rest: string } | undefined {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim());
  return match ? { name: match[1]!, rest: match[2]!.trim() } : undefined;
}
