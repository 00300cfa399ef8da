import path from 'node:path';
import { ConfigError } from '../config/errors.js';
import type { ResolvedConfig } from '../config/load.js';
import type { TerminalApproval } from './terminal-tool.js';

export type ProviderName = 'dry-run' | 'openai-compatible' | 'openai' | 'anthropic';

export interface ResolvedModel {
  provider: ProviderName;
  name: string;
  baseUrl?: string;
  apiKey?: string;
}

export interface ResolvedAgent {
  model: ResolvedModel;
  maxSteps: number;
  runTimeoutMs: number;
  workdir: string;
  terminal: { approval: TerminalApproval; timeoutMs: number };
  approvals: { timeoutMs: number; headless: 'deny' | 'wait' };
}

const unresolved = /\$\{[^{}]+\}/;

/** Checks the model settings at startup: a provider that needs a key or URL and has none is a config error. */
export function resolveAgent(config: ResolvedConfig): ResolvedAgent {
  const values = config.values;
  const model = values.model ?? {};
  const provider = model.provider ?? 'dry-run';
  const where = config.home.configFile;
  const need = (key: 'base_url' | 'name' | 'api_key', why: string): string => {
    const value = model[key];
    if (value === undefined || value === '') throw new ConfigError('MODEL_SETTING_MISSING', `model.${key} is required for provider "${provider}" (${why})`, `Set it: switchboard config set model.${key} <value>   (file: ${where})`);
    if (unresolved.test(value)) {
      const name = unresolved.exec(value)![0];
      throw new ConfigError('MODEL_SETTING_UNRESOLVED', `model.${key} refers to ${name}, which is not set`, `Add it to ${config.home.envFile} or the environment, or change model.${key} in ${where}.`);
    }
    return value;
  };
  let resolved: ResolvedModel;
  switch (provider) {
    case 'dry-run':
      resolved = { provider, name: model.name ?? 'dry-run' };
      break;
    case 'openai-compatible':
      resolved = { provider, baseUrl: need('base_url', 'the server address, e.g. http://127.0.0.1:11434/v1'), name: need('name', 'the model to call'), apiKey: optionalKey(model.api_key) };
      break;
    case 'openai':
    case 'anthropic':
      resolved = { provider, name: need('name', 'the model to call'), apiKey: need('api_key', 'the API key, e.g. "${OPENAI_API_KEY}" with the value in .env'), baseUrl: model.base_url || undefined };
      break;
  }
  const agent = values.agent ?? {};
  return {
    model: resolved,
    maxSteps: agent.max_steps ?? 20,
    runTimeoutMs: (agent.run_timeout_seconds ?? 600) * 1000,
    workdir: agent.workdir ? path.resolve(config.home.root, agent.workdir) : config.home.workspaceDir,
    terminal: { approval: agent.terminal?.approval ?? 'dangerous', timeoutMs: (agent.terminal?.timeout_seconds ?? 120) * 1000 },
    approvals: { timeoutMs: (values.approvals?.timeout_seconds ?? 300) * 1000, headless: values.approvals?.headless ?? 'deny' },
  };
}

/** Keyless local servers (Ollama) are fine; an unset `${VAR}` is treated as no key. */
function optionalKey(value: string | undefined): string | undefined {
  return value && !unresolved.test(value) ? value : undefined;
}
