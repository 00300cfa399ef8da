import { describe, expect, it } from 'vitest';
import { elicitationFields } from '../../source/operations/elicitation-fields.js';
import { formAnswer } from '../../source/operations/form-answer.js';

/** A form with one field of every kind the CLI converts. */
const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Your name' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    ratio: { type: 'number' },
    agree: { type: 'boolean' },
    color: { type: 'string', enum: ['red', 'green'], default: 'red' },
    hero: { type: 'string', oneOf: [{ const: 'hero-1', title: 'Superman' }, { const: 'hero-2', title: 'Batman' }] },
    fish: { type: 'array', items: { enum: ['tuna', 'trout', 'salmon'] }, maxItems: 2 },
    email: { type: 'string', format: 'email' },
  },
  required: ['name', 'color'],
};
const fields = elicitationFields(schema);
const texts = (...pairs: Array<[string, string]>) => formAnswer(fields, { texts: pairs });

describe('an elicitation form answered from text (approvals answer --value, the questions of run)', () => {
  it('converts each text by the field\'s type, as the console\'s form does', () => {
    expect(texts(['name', 'Ada Lovelace'], ['age', '36'], ['ratio', '0.5'], ['agree', 'yes'], ['color', 'green'], ['hero', 'batman'], ['fish', 'tuna, trout'], ['email', 'ada@example.com']))
      .toEqual({ ok: true, values: { name: 'Ada Lovelace', age: 36, ratio: 0.5, agree: true, color: 'green', hero: 'hero-2', fish: ['tuna', 'trout'], email: 'ada@example.com' } });
  });

  it('names every field that does not fit and what it expects', () => {
    const answer = texts(['name', 'Ada'], ['age', '3.5'], ['ratio', 'half'], ['agree', 'maybe'], ['color', 'blue'], ['fish', 'tuna, cod'], ['email', 'nope'], ['colour', 'red']);
    expect(answer).toEqual({
      ok: false,
      problems: [
        'age: must be a whole number (got 3.5)',
        'ratio: must be a number (got "half")',
        'agree: must be true or false (got "maybe")',
        'color: must be one of red, green (got "blue")',
        'fish: must be one of tuna, trout, salmon (got "cod")',
        'email: "nope" is not an email address',
        'colour: not a field of this form (its fields: name, age, ratio, agree, color, hero, fish, email)',
      ],
    });
    expect(texts(['name', 'Ada'], ['age', '200'], ['fish', 'tuna, trout, salmon'])).toEqual({ ok: false, problems: ['age: must be from 0 to 150 (got 200)', 'fish: choose at most 2'] });
  });

  it('a required field left out is named with what it takes; a default counts as given (the server applies it)', () => {
    expect(texts(['age', '3'])).toEqual({ ok: false, problems: ['name: is required (text)'] });
    expect(texts(['name', ''])).toEqual({ ok: false, problems: ['name: is required (text)'] });
    expect(texts(['name', 'Ada'])).toEqual({ ok: true, values: { name: 'Ada' } });
  });
});

describe('an elicitation form answered with JSON values (approvals answer --json, approvals.answer over the control channel)', () => {
  it('takes values of the field\'s type, and text on top of them', () => {
    const values = { name: 'Ada', age: 36, ratio: 1, agree: false, color: 'green', hero: 'hero-1', fish: ['salmon'] };
    expect(formAnswer(fields, { values })).toEqual({ ok: true, values });
    expect(formAnswer(fields, { values, texts: [['age', '40'], ['fish', '']] })).toEqual({ ok: true, values: { ...values, age: 40, fish: undefined } });
  });

  it('refuses a value of another type rather than guessing, and checks ranges and formats as for text', () => {
    expect(formAnswer(fields, { values: { name: 5, age: '36', ratio: '1', agree: 'yes', color: 'Red', hero: 'Superman', fish: 'tuna', email: 'x' } })).toEqual({
      ok: false,
      problems: [
        'name: must be text (got 5)',
        'age: must be a whole number (got "36")',
        'ratio: must be a number (got "1")',
        'agree: must be true or false (got "yes")',
        'color: must be one of red, green (got "Red")',
        'hero: must be one of hero-1, hero-2 (got "Superman")',
        'fish: must be a list of tuna, trout, salmon (got "tuna")',
        'email: "x" is not an email address',
      ],
    });
    expect(formAnswer(fields, { values: { name: 'Ada', age: -1, other: 1 } })).toEqual({ ok: false, problems: ['age: must be from 0 to 150 (got -1)', 'other: not a field of this form (its fields: name, age, ratio, agree, color, hero, fish, email)'] });
  });
});

describe('elicitation fields', () => {
  it('carry the schema type, what they accept in words, the description and the default', () => {
    expect(fields.map(({ key, type, accepts, required, default: value }) => ({ key, type, accepts, required, default: value }))).toEqual([
      { key: 'name', type: 'string', accepts: 'text', required: true, default: undefined },
      { key: 'age', type: 'integer', accepts: 'a whole number from 0 to 150', required: false, default: undefined },
      { key: 'ratio', type: 'number', accepts: 'a number', required: false, default: undefined },
      { key: 'agree', type: 'boolean', accepts: 'true or false', required: false, default: undefined },
      { key: 'color', type: 'string', accepts: 'one of: red, green', required: true, default: 'red' },
      { key: 'hero', type: 'string', accepts: 'one of: hero-1 (Superman), hero-2 (Batman)', required: false, default: undefined },
      { key: 'fish', type: 'array', accepts: 'several of (comma-separated): tuna, trout, salmon', required: false, default: undefined },
      { key: 'email', type: 'string', accepts: 'an email address', required: false, default: undefined },
    ]);
    expect(fields[0]!.hint).toBe('Your name · text');
  });
});
