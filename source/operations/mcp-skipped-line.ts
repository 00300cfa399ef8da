import type { SkippedTool } from '../mcp/manager.js';

/** How `mcp list` and the console's server details say a tool was left out for a name clash. */
export function skippedLine(tool: SkippedTool): string {
  return `! tool "${tool.name}" (${tool.original}) skipped: "${tool.owner}" already provides it`;
}
