import type { Skill } from './skills.js';
import type { ToolDefinition } from './types.js';

/** The system prompt of a run: our base text, then skills in order, then the caller's extra text. */
export function buildSystemPrompt(input: { workdir: string; skills: readonly Skill[]; extra?: string }): string {
  const parts = [
    'You are the Switchboard agent. You run unattended on behalf of an operator who reads your final answer later.',
    `Shell commands run in ${input.workdir}. Some tool calls need the operator's approval; when a call is refused, do not retry it unless asked.`,
    'Finish with a concise final answer: it is delivered exactly as you write it.',
  ];
  for (const skill of input.skills) parts.push(`## Skill: ${skill.name}${skill.description ? ` - ${skill.description}` : ''}\n\n${skill.body}`);
  if (input.extra) parts.push(input.extra);
  return parts.join('\n\n');
}

/** The `dry-run` answer: everything a real run would have sent, clearly marked as not from a model. */
export function dryRunAnswer(systemPrompt: string, prompt: string, tools: readonly ToolDefinition[]): string {
  const toolLines = tools.length === 0 ? '(none)' : tools.map((tool) => `- ${tool.name}: ${tool.description}`).join('\n');
  return [
    '[dry-run] No model was called (model.provider is "dry-run"). A real run would have sent:',
    `## System prompt\n\n${systemPrompt}`,
    `## User prompt\n\n${prompt}`,
    `## Tools (${tools.length})\n\n${toolLines}`,
  ].join('\n\n');
}
