import type { SubscribeRequest } from '../webhooks/subscribe.js';

/** The console's command line: `/name rest`. Parsing only; App and slash-runner run them against the core. */
export interface SlashCommand {
  name: string;
  usage: string;
  description: string;
}

export const slashCommands: readonly SlashCommand[] = [
  { name: 'run', usage: '/run <prompt>', description: 'run the agent now; the answer goes to the Output pane' },
  { name: 'reload-mcp', usage: '/reload-mcp', description: 'reread mcp_servers: reconnect changed servers, drop removed ones' },
  { name: 'cron', usage: '/cron <action> ...', description: 'create <schedule> <prompt> [--name N --deliver T --skills a,b] (quote a schedule with spaces), list, or pause|resume|remove|run <job>' },
  { name: 'webhook', usage: '/webhook subscribe|list|remove', description: 'subscribe <name> [--events a,b --prompt T --skills a,b --deliver T --deliver-extra k=v --secret S --description D]; list; remove <name>' },
  { name: 'nodes', usage: '/nodes', description: 'the gateways of the cluster (several on one PostgreSQL): state, config hash, runs, last heartbeat' },
  { name: 'install', usage: '/install <link>', description: 'install an MCP server from a switchboard://mcp/install link, after a confirmation' },
  { name: 'help', usage: '/help', description: 'list these commands' },
];

export function parseSlash(line: string): { name: string; rest: string } | undefined {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim());
  return match ? { name: match[1]!, rest: match[2]!.trim() } : undefined;
}

/** Splits arguments on spaces, keeping "double" or 'single' quoted parts together. */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) out.push(match[1] ?? match[2] ?? match[3]!);
  return out;
}

/** `--flag value` pairs out of a token list (the last one wins; `repeated` keeps them all); the other tokens stay positional. */
export function takeFlags(tokens: readonly string[], names: readonly string[]): { positional: string[]; flags: Record<string, string>; repeated: Record<string, string[]> } {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  const repeated: Record<string, string[]> = {};
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    const name = token.startsWith('--') ? token.slice(2) : undefined;
    if (name !== undefined && names.includes(name) && index + 1 < tokens.length) {
      flags[name] = tokens[index + 1]!;
      (repeated[name] ??= []).push(tokens[index + 1]!);
      index += 1;
    } else positional.push(token);
  }
  return { positional, flags, repeated };
}

const subscribeFlags = ['events', 'prompt', 'skills', 'deliver', 'deliver-extra', 'secret', 'description'];

/** `/webhook subscribe <name> [--events a,b] ...`: the same options as `switchboard webhook subscribe`. */
export function parseSubscribe(args: readonly string[]): { ok: true; value: SubscribeRequest } | { ok: false; reason: string } {
  const { positional, flags, repeated } = takeFlags(args, subscribeFlags);
  const stray = positional.find((token) => token.startsWith('--'));
  if (stray) return { ok: false, reason: `unknown option ${stray} (or it has no value); options: ${subscribeFlags.map((flag) => `--${flag}`).join(' ')}` };
  if (positional.length !== 1) return { ok: false, reason: positional.length === 0 ? 'the subscription name is missing' : `one name expected, got ${positional.join(' ')} (quote text with spaces)` };
  return {
    ok: true,
    value: {
      name: positional[0]!, events: flags.events, prompt: flags.prompt, skills: flags.skills, deliver: flags.deliver,
      deliverExtra: repeated['deliver-extra'], secret: flags.secret, description: flags.description,
    },
  };
}
