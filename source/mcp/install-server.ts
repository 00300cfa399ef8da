import { setAt } from '../config/edit.js';
import { readConfigFile, writeConfigFile } from '../infra/config-file.js';
import type { ConfigFile, McpServerConfig } from '../config/types.js';
import { validateConfig } from '../config/validate.js';

export type InstallResult = { ok: true; configFile: string } | { ok: false; reason: string };

/**
 * Adds one server entry to config.json: never over an existing name, and only when the whole file
 * stays valid. A running gateway notices the change and connects the server (config watch).
 */
export function installServer(configFile: string, name: string, entry: McpServerConfig): InstallResult {
  const file = (readConfigFile(configFile) ?? {}) as ConfigFile;
  if (file.mcp_servers?.[name]) return { ok: false, reason: `An MCP server named "${name}" already exists; it is never overwritten` };
  const next = setAt(file, ['mcp_servers', name], entry) as ConfigFile;
  const issues = validateConfig(next);
  if (issues.length > 0) return { ok: false, reason: `the entry would make config.json invalid: ${issues.map((issue) => `${issue.path}: ${issue.reason}`).join('; ')}` };
  writeConfigFile(configFile, next as Record<string, unknown>);
  return { ok: true, configFile };
}

/** Every configured server name, disabled ones included: the names an install may not take. */
export function configuredServerNames(configFile: string): string[] {
  return Object.keys(((readConfigFile(configFile) ?? {}) as ConfigFile).mcp_servers ?? {});
}
