import { InvalidArgumentError } from './commander.js';

/**
 * The parsers of numeric options (commander's argParser): a value that is not one fails the parse,
 * and commander names the option as typed (`option '--limit <n>' argument 'abc' is invalid`), exit 2.
 * The ranges are the operations' own (operations/params.ts), so a value that passes here is never refused there.
 */

/** A whole number from 1 to `max` (a count or a limit). */
export function wholeNumber(max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1 || number > max) throw new InvalidArgumentError(`It must be a whole number from 1 to ${max}.`);
    return number;
  };
}

/** A number above 0, fractions allowed (seconds). */
export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('It must be a number above 0.');
  return number;
}
