import { describe, expect, it } from 'vitest';
import { resolveAgent } from '../../source/agent/model-config.js';
import { ConfigError } from '../../source/config/errors.js';
import { defaultConfig } from '../../source/config/default-config.js';
import { resolveConfig } from '../../source/config/load.js';
import type { ConfigFile } from '../../source/config/types.js';
import { tempHome } from '../helpers/temp-home.js';

function resolveWith(model: ConfigFile['model'], env: NodeJS.ProcessEnv = {}) {
  const file = { ...defaultConfig(), model };
  return () => resolveAgent(resolveConfig(file, tempHome(), env));
}

describe('model settings', () => {
  it('defaults to dry-run with documented limits', () => {
    const agent = resolveWith(undefined)();
    expect(agent).toMatchObject({ model: { provider: 'dry-run' }, maxSteps: 20, runTimeoutMs: 600_000, terminal: { approval: 'dangerous', timeoutMs: 120_000 }, approvals: { timeoutMs: 300_000, headless: 'deny' } });
    expect(agent.workdir.endsWith('/home/workspace')).toBe(true);
  });

  it('resolves api_key through ${VAR}', () => {
    expect(resolveWith({ provider: 'anthropic', name: 'claude', api_key: '${ANTHROPIC_API_KEY}' }, { ANTHROPIC_API_KEY: 'sk-ant' })().model).toEqual({ provider: 'anthropic', name: 'claude', apiKey: 'sk-ant', baseUrl: undefined });
  });

  it.each([
    [{ provider: 'openai', name: 'gpt' }, 'model.api_key is required for provider "openai"'],
    [{ provider: 'anthropic', name: 'c', api_key: '${MISSING_KEY}' }, 'model.api_key refers to ${MISSING_KEY}, which is not set'],
    [{ provider: 'openai-compatible', name: 'llama' }, 'model.base_url is required for provider "openai-compatible"'],
    [{ provider: 'openai-compatible', base_url: 'http://127.0.0.1:1/v1' }, 'model.name is required for provider "openai-compatible"'],
  ] as const)('refuses %j at startup', (model, message) => {
    const resolve = resolveWith(model as ConfigFile['model']);
    expect(resolve).toThrow(ConfigError);
    expect(resolve).toThrow(message);
  });

  it('lets keyless OpenAI-compatible servers (Ollama) through', () => {
    expect(resolveWith({ provider: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1', name: 'llama3.1', api_key: '${UNSET}' })().model.apiKey).toBeUndefined();
  });
});
