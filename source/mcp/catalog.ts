import type { Tool } from '@modelcontextprotocol/client';
import { notApprovedText, type ApprovalOutcome, type ToolAnnotations, type ToolContext, type ToolDefinition, type ToolOutput } from '../agent/types.js';
import type { McpConnection, McpDiscovery } from './connection.js';
import { isToolSelected, mcpToolName } from './names.js';
import { convertToolResult, truncate } from './results.js';
import type { ResolvedMcpServer } from './server-config.js';

/** One registered tool with where it came from (for `mcp list` and the console). */
export interface CatalogEntry {
  name: string;
  original: string;
  readOnly: boolean;
  utility: boolean;
  /** The server's description of the tool (the console's MCP pane shows it). */
  description: string;
}

export interface Catalog {
  definitions: ToolDefinition[];
  entries: CatalogEntry[];
  warnings: string[];
}

export interface CatalogDeps {
  server: ResolvedMcpServer;
  connection: Pick<McpConnection, 'callTool' | 'use'>;
  mediaDir: string;
}

/** Spec 2.2 and 2.5: filtered native tools, utility tools when advertised, collisions skipped. */
export function buildCatalog(discovery: McpDiscovery, deps: CatalogDeps): Catalog {
  const { server } = deps;
  const warnings: string[] = [];
  const candidates: Array<{ name: string; original: string; make: () => ToolDefinition; readOnly: boolean; utility: boolean }> = [];
  for (const tool of discovery.tools) {
    if (!isToolSelected(tool.name, server.tools)) continue;
    const annotations = toAnnotations(tool);
    candidates.push({ name: mcpToolName(server.name, tool.name), original: tool.name, readOnly: annotations.readOnlyHint === true, utility: false, make: () => nativeTool(tool, annotations, deps) });
  }
  for (const utility of utilityTools(discovery, deps)) {
    candidates.push({ name: utility.name, original: utility.original, readOnly: true, utility: true, make: () => utility.definition });
  }
  const byName = new Map<string, typeof candidates>();
  for (const candidate of candidates) byName.set(candidate.name, [...(byName.get(candidate.name) ?? []), candidate]);
  const definitions: ToolDefinition[] = [];
  const entries: CatalogEntry[] = [];
  for (const [name, group] of byName) {
    if (group.length > 1) {
      warnings.push(`server ${server.name}: tools ${group.map((c) => JSON.stringify(c.original)).join(' and ')} all become ${name}; none of them is registered (rename them on the server or exclude all but one)`);
      continue;
    }
    const only = group[0]!;
    const definition = only.make();
    definitions.push(definition);
    entries.push({ name, original: only.original, readOnly: only.readOnly, utility: only.utility, description: definition.description });
  }
  return { definitions, entries, warnings };
}

function toAnnotations(tool: Tool): ToolAnnotations {
  const a = (tool.annotations ?? {}) as Record<string, unknown>;
  const out: ToolAnnotations = {};
  if (typeof a.title === 'string') out.title = a.title;
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) if (typeof a[key] === 'boolean') out[key] = a[key];
  return out;
}

function nativeTool(tool: Tool, annotations: ToolAnnotations, deps: CatalogDeps): ToolDefinition {
  const { server } = deps;
  const name = mcpToolName(server.name, tool.name);
  return {
    name,
    description: tool.description ?? tool.title ?? tool.name,
    inputSchema: (tool.inputSchema ?? { type: 'object', properties: {} }) as Record<string, unknown>,
    annotations,
    parallelSafe: server.parallelSafe,
    source: server.name,
    async execute(args, context) {
      if (server.trust === 'untrusted' && annotations.readOnlyHint !== true) {
        const outcome = await approve(context, { tool: name, server: server.name, args, annotations, reason: `server ${server.name} is untrusted and ${tool.name} is not marked read-only` });
        if (outcome.status !== 'approved') return { text: notApprovedText(outcome, 'tool call'), isError: true };
      }
      const result = await deps.connection.callTool(tool.name, args, context.signal);
      return convertToolResult(result as Record<string, unknown>, { server: server.name, mediaDir: deps.mediaDir });
    },
  };
}

/** A failing approval path never grants permission. */
async function approve(context: ToolContext, input: Parameters<ToolContext['requestApproval']>[0]): Promise<ApprovalOutcome> {
  try {
    return await context.requestApproval(input);
  } catch (error) {
    return { status: 'denied', reason: `the approval request failed: ${(error as Error).message}`, by: 'policy' };
  }
}

function utilityTools(discovery: McpDiscovery, deps: CatalogDeps): Array<{ name: string; original: string; definition: ToolDefinition }> {
  const { server, connection } = deps;
  const out: Array<{ name: string; original: string; definition: ToolDefinition }> = [];
  const add = (original: string, description: string, inputSchema: Record<string, unknown>, run: (args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolOutput>) => {
    const name = mcpToolName(server.name, original);
    out.push({
      name, original,
      definition: { name, description, inputSchema, annotations: { readOnlyHint: true }, parallelSafe: server.parallelSafe, source: server.name, execute: (args, context) => run(args, context.signal) },
    });
  };
  const json = (value: unknown): ToolOutput => ({ text: truncate(JSON.stringify(value, undefined, 2)), structured: value });
  const opts = (signal: AbortSignal) => ({ timeout: server.timeoutMs, signal });
  if (server.tools.resources && discovery.resources) {
    add('list_resources', `List the resources of MCP server ${server.name}`, { type: 'object', properties: { cursor: { type: 'string' } } },
      async (args, signal) => json(await connection.use('list_resources', (s) => s.client.listResources(args.cursor ? { cursor: String(args.cursor) } : undefined, opts(signal)), signal)));
    add('read_resource', `Read one resource of MCP server ${server.name} by URI`, { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
      async (args, signal) => {
        const result = await connection.use('read_resource', (s) => s.client.readResource({ uri: String(args.uri) }, opts(signal)), signal);
        const content = (result.contents ?? []).map((c) => ({ type: 'resource', resource: c }));
        return convertToolResult({ content }, { server: server.name, mediaDir: deps.mediaDir });
      });
  }
  if (server.tools.prompts && discovery.prompts) {
    add('list_prompts', `List the prompts of MCP server ${server.name}`, { type: 'object', properties: { cursor: { type: 'string' } } },
      async (args, signal) => json(await connection.use('list_prompts', (s) => s.client.listPrompts(args.cursor ? { cursor: String(args.cursor) } : undefined, opts(signal)), signal)));
    add('get_prompt', `Get one prompt of MCP server ${server.name} with its arguments`, { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['name'] },
      async (args, signal) => {
        const result = await connection.use('get_prompt', (s) => s.client.getPrompt({ name: String(args.name), arguments: (args.arguments ?? {}) as Record<string, string> }, opts(signal)), signal);
        const text = result.messages.map((m) => `${m.role}: ${(m.content as { type: string; text?: string }).type === 'text' ? (m.content as { text: string }).text : JSON.stringify(m.content)}`).join('\n');
        return { text: truncate(text), structured: result };
      });
  }
  return out;
}
