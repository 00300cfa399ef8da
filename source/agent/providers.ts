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

let aiSdk: Promise<typeof import('ai')> | undefined;
/** The AI SDK, imported once: an `import()` of a module already loaded still resolves it again (about 9 µs a run). */
export const loadAiSdk = (): Promise<typeof import('ai')> => (aiSdk ??= import('ai'));

export interface ModelLoader {
  /** The configured model (undefined for dry-run), made once. */
  get(): Promise<LanguageModel | undefined>;
  /**
   * Makes it now, with the AI SDK the runs use: the gateway calls this as it starts, so the first run
   * does not load the provider packages (about 100-200 ms of module loading on one thread) while
   * webhooks arrive. A failure here is left for that first run to report.
   */
  preload(): Promise<void>;
}

export function createModelLoader(model: ResolvedModel): ModelLoader {
  let made: Promise<LanguageModel | undefined> | undefined;
  const get = () => (made ??= createLanguageModel(model).catch((error: unknown) => {
    made = undefined;
    throw error;
  }));
  return {
    get,
    async preload() {
      if (model.provider === 'dry-run') return;
      await Promise.all([get(), loadAiSdk()]).catch(() => {});
    },
  };
}
