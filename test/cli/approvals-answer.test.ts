import { describe, expect, it } from 'vitest';
import { formAnswerOptions } from '../../source/cli/form-answer-options.js';
import { UsageError } from '../../source/cli/output.js';
import type { ApprovalRecord } from '../../source/store/approvals.js';

const form: ApprovalRecord = {
  id: 'f0f0f0f0-0000', origin: 'mcp:fx', tool: 'elicitation', server: 'fx', argsPreview: '{}', annotations: null, reason: null,
  form: { message: 'Your details:', schema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] } },
  status: 'pending', decisionReason: null, decidedBy: null, values: null, createdAtMs: 0, expiresAtMs: 60_000, decidedAtMs: null,
};

/** The UsageError `run` throws: message, details and hint. */
function usageError(run: () => unknown): { message: string; details: string[]; hint?: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const { message, details, hint } = error as UsageError;
    return { message, details, ...(hint ? { hint } : {}) };
  }
  throw new Error('no UsageError');
}

describe('approvals answer: the options', () => {
  it('--value takes field=value (the first = splits: a value may hold one), --json an object; --value goes on top', () => {
    const given = formAnswerOptions({ value: ['name=a=b', 'age=7'], json: '{"name": "x", "age": 1}' });
    expect(given !== 'decline' && given.check(form)).toEqual({ name: 'a=b', age: 7 });
    expect(formAnswerOptions({ value: [], decline: true })).toBe('decline');
  });

  it('malformed options are usage mistakes, found before anything is looked up', () => {
    expect(usageError(() => formAnswerOptions({ value: ['name'] })).message).toBe('--value "name" must look like field=value');
    expect(usageError(() => formAnswerOptions({ value: ['=x'] })).message).toBe('--value "=x" must look like field=value');
    expect(usageError(() => formAnswerOptions({ value: ['age=1', 'age=2'] })).message).toBe('--value age is given twice (a multiple choice takes its values at once: --value age=a,b)');
    expect(usageError(() => formAnswerOptions({ value: [], json: '{name' })).message).toMatch(/^--json is not JSON \(.+\); give an object such as '\{"name": "Ada"\}'$/);
    expect(usageError(() => formAnswerOptions({ value: [], json: '"Ada"' })).message).toBe('--json must be a JSON object such as \'{"name": "Ada"}\' (got "Ada")');
    expect(usageError(() => formAnswerOptions({ value: ['name=Ada'], decline: true })).message).toBe('--decline sends no values: give either --decline or --value/--json');
  });

  it('values that do not fit the form are a usage mistake listing each field; nothing is sent', () => {
    const given = formAnswerOptions({ value: ['age=old', 'nick=Ada'] });
    expect(usageError(() => given !== 'decline' && given.check(form))).toEqual({
      message: 'The answer does not fit the form of approval f0f0f0f0 (fx asks for: Your details)',
      details: ['age: must be a number (got "old")', 'nick: not a field of this form (its fields: name, age)', 'name: is required (text)'],
      hint: 'Nothing was sent. See its fields: switchboard approvals list',
    });
  });

  it('a decided request or a tool call is left to the operation, which refuses it in its own words', () => {
    const given = formAnswerOptions({ value: ['age=old'] });
    expect(given !== 'decline' && given.check({ ...form, status: 'approved' })).toEqual({});
    expect(given !== 'decline' && given.check({ ...form, form: null })).toEqual({});
  });
});
