import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogFile } from '../../source/infra/log-file.js';
import { tempHome } from '../helpers/temp-home.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('the log file writer (issue #18, item 1)', () => {
  it('appends the lines of an event-loop turn in one write, mode 0600, and flushes what is buffered on close', async () => {
    const file = path.join(tempHome().root, 'logs', 'gateway.log');
    const log = createLogFile(file);
    for (let n = 0; n < 100; n++) log.write(`{"n":${n}}\n`);
    expect(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '').toBe(''); // nothing written within the turn
    await settle();
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(101); // all of it at the end of the turn
    log.write('{"n":100}\n');
    await log.close();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(101);
    expect(lines.at(-1)).toBe('{"n":100}');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(log.health()).toEqual({ dropped: 0, fault: null });
  });

  it('on a device that is always full (/dev/full) it drops and counts lines, never throws and never blocks', async () => {
    const log = createLogFile('/dev/full');
    const started = performance.now();
    for (let n = 0; n < 1000; n++) expect(log.write(`{"n":${n}}\n`)).toBe(true);
    log.flushSync();
    await settle();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(log.health().fault).toBe('ENOSPC');
    expect(log.health().dropped).toBe(1000);
    await log.close();
  });

  it('holds at most a bounded buffer while writes fail: the rest is dropped and counted', async () => {
    const log = createLogFile('/dev/full');
    log.write('first\n');
    await settle(); // the first write fails: now in a fault, retried in a second
    const line = `${'x'.repeat(1023)}\n`;
    for (let n = 0; n < 8 * 1024; n++) log.write(line); // 8 MB against a 4 MB bound
    expect(log.health().dropped).toBeGreaterThanOrEqual(1 + 4 * 1024);
    await log.close();
  });
});
