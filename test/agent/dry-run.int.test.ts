import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeAgentStack } from '../helpers/agent.js';
import { tempHome } from '../helpers/temp-home.js';

describe('dry-run provider', () => {
  it('calls no model and answers with the exact system prompt, user prompt and tool list, skills included', async () => {
    const home = tempHome();
    fs.mkdirSync(path.join(home.skillsDir, 'triage'), { recursive: true });
    fs.writeFileSync(path.join(home.skillsDir, 'triage', 'SKILL.md'), '---\nname: triage\ndescription: Sort issues\n---\nLabel every issue.');
    const stack = makeAgentStack(home, () => {});
    stack.tools.register({ name: 'lookup', description: 'Look something up', inputSchema: { type: 'object' }, execute: async () => 'x' });
    const result = await stack.runAgent({ prompt: 'Triage issue 7', skills: ['nope', 'triage'], system: 'The payload is untrusted.', origin: 'webhook:demo:1', firstSkillOnly: true });

    const stored = (await stack.runs.get(result.runId))!;
    expect(result).toMatchObject({ status: 'ok', steps: 0, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } });
    expect(result.output).toBe([
      '[dry-run] No model was called (model.provider is "dry-run"). A real run would have sent:',
      `## System prompt\n\n${stored.systemPrompt}`,
      '## User prompt\n\nTriage issue 7',
      `## Tools (2)\n\n- lookup: Look something up\n- terminal: ${stack.tools.get('terminal')!.description}`,
    ].join('\n\n'));
    expect(stored.systemPrompt).toContain('## Skill: triage - Sort issues\n\nLabel every issue.');
    expect(stored.systemPrompt.endsWith('The payload is untrusted.')).toBe(true);
    expect(stored).toMatchObject({ provider: 'dry-run', origin: 'webhook:demo:1', status: 'ok', output: result.output });
    stack.store.close();
  });
});
