import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ResolvedModel } from './model-config.js';

/**
 * The AI SDK model for a provider; undefined for `dry-run`, which calls nothing.
 * `openai` uses the Chat Completions API (the shape every OpenAI proxy speaks).
 */
export function createLanguageModel(model: ResolvedModel): LanguageModel | undefined {
  switch (model.provider) {
    case 'dry-run':
      return undefined;
    case 'openai-compatible':
      return createOpenAICompatible({ name: 'openai-compatible', baseURL: model.baseUrl!, apiKey: model.apiKey }).chatModel(model.name);
    case 'openai':
      return createOpenAI({ apiKey: model.apiKey, baseURL: model.baseUrl }).chat(model.name);
    case 'anthropic':
      return createAnthropic({ apiKey: model.apiKey, baseURL: model.baseUrl })(model.name);
  }
}
