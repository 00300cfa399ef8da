import type { ToolDefinition, ToolRegistry } from './types.js';

const validName = /^[A-Za-z0-9_]{1,128}$/;

/** The tools the agent may call. Later sources (MCP servers, the scheduler) register into it. */
export function createToolRegistry(): ToolRegistry & { onChange(listener: () => void): () => void } {
  const tools = new Map<string, ToolDefinition>();
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((listener) => listener());
  return {
    register(tool) {
      if (!validName.test(tool.name)) throw new Error(`Tool name "${tool.name}" must match ${validName}`);
      if (tools.has(tool.name)) throw new Error(`Tool "${tool.name}" is already registered`);
      tools.set(tool.name, tool);
      changed();
    },
    unregister(name) {
      if (tools.delete(name)) changed();
    },
    get: (name) => tools.get(name),
    list: () => [...tools.values()].sort((a, b) => a.name.localeCompare(b.name)),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
