import type { ResolvedModel } from '../agent/model-config.js';
import { createLanguageModel } from '../agent/providers.js';
import type { SampleFn } from './server-requests.js';

/**
 * Sampling through the configured model (`sampling.model` overrides the name). The dry-run provider
 * calls nothing and answers a clearly marked text containing the prompt.
 */
export function createSampler(model: ResolvedModel): SampleFn {
  return async (request) => {
    const name = request.model ?? model.name;
    const language = await createLanguageModel({ ...model, name });
    if (!language) {
      const last = request.messages.at(-1)?.text ?? '';
      return { ok: true, value: { model: 'dry-run', text: `[dry-run] sampling request from ${request.server}: ${last}`, stopReason: 'endTurn' } };
    }
    try {
      const { generateText } = await import('ai');
      const result = await generateText({
        model: language,
        system: request.systemPrompt,
        messages: request.messages.map((m) => ({ role: m.role, content: m.text })),
        maxOutputTokens: request.maxTokens,
        abortSignal: request.signal,
      });
      return { ok: true, value: { model: name, text: result.text, stopReason: result.finishReason === 'length' ? 'maxTokens' : 'endTurn' } };
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
  };
}
