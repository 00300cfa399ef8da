import type { LanguageModel } from 'ai';
import type { ResolvedModel } from './model-config.js';

/**
 * The AI SDK model for a provider; undefined for `dry-run`, which calls nothing. Provider packages
 * load on first use (a dry-run gateway never loads them). `openai` uses the Chat Completions API
 * (the shape every OpenAI proxy speaks). Every provider sends through createModelFetch (node:http, kept alive).
 */
export async function createLanguageModel(model: ResolvedModel): Promise<LanguageModel | undefined> {
  if (model.provider === 'dry-run') return undefined;
  const fetch = (await import('./model-fetch.js')).createModelFetch();
  switch (model.provider) {
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({ name: 'openai-compatible', baseURL: model.baseUrl!, apiKey: model.apiKey, fetch }).chatModel(model.name);
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ apiKey: model.apiKey, baseURL: model.baseUrl, fetch }).chat(model.name);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: model.apiKey, baseURL: model.baseUrl, fetch })(model.name);
    }
  }
}
