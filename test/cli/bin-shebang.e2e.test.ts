import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { binNodeFlags } from '../../scripts/bench-lib.js';
import { cliPath } from '../helpers/cli.js';

describe('the switchboard bin', () => {
  it('starts through its shebang with the young generation held small, as the benchmarks start it', () => {
    expect(fs.readFileSync(cliPath, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env -S node --max-semi-space-size=4');
    expect(binNodeFlags(cliPath)).toEqual(['--max-semi-space-size=4']);
    // npm makes a bin executable when it installs it; the build does not.
    fs.chmodSync(cliPath, 0o755);
    const nodeDir = path.dirname(process.execPath);
    const run = spawnSync(cliPath, ['--version'], { encoding: 'utf8', env: { ...process.env, PATH: `${nodeDir}${path.delimiter}${process.env.PATH ?? ''}` } });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(run.status).toBe(0);
  });
});
