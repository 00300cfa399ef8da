import { describe, expect, it } from 'vitest';
import { formatLine, MAX_FIELD_CHARS } from '../../source/infra/readable-lines.js';

const at = new Date(2026, 0, 2, 9, 5, 7).toISOString();

describe('the headless gateway\'s readable lines', () => {
  it('prints time, level and message, then every field but pid and hostname', () => {
    const line = JSON.stringify({ level: 30, time: at, pid: 12, hostname: 'h', socketPath: '/home/x/control.sock', routes: ['demo'], msg: 'Control channel listening' });
    expect(formatLine(line)).toBe('[09:05:07] INFO: Control channel listening\n    socketPath: "/home/x/control.sock"\n    routes: [\n      "demo"\n    ]\n');
  });

  it('prints an error with its stack and cuts long values (gateway.log keeps them whole)', () => {
    const line = JSON.stringify({ level: 50, time: at, err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (file.js:1:1)' }, output: 'y'.repeat(1000), msg: 'Run crashed' });
    const text = formatLine(line);
    expect(text).toContain('[09:05:07] ERROR: Run crashed\n    err: Error: boom\n            at x (file.js:1:1)\n');
    expect(text).toContain(`    output: "${'y'.repeat(MAX_FIELD_CHARS)}…"\n`);
  });

  it('colours the level on a terminal and passes a line that is not JSON through', () => {
    expect(formatLine(JSON.stringify({ level: 40, time: at, msg: 'slow' }), true)).toBe('[09:05:07] \u001b[33mWARN\u001b[39m\u001b[49m: slow\n');
    expect(formatLine('plain text')).toBe('plain text\n');
  });
});
