import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { ConfigProblems } from '../../source/ui/components/ConfigProblems.js';

describe('the config problems dialog', () => {
  it('shows a problem of the whole file without a key, and a key\'s problem after its key', () => {
    const issues = [{ path: '', reason: '/x/config.json is not valid JSON: Unexpected token' }, { path: 'timezon', reason: 'unknown key; did you mean "timezone"?' }];
    const lines = render(<ConfigProblems issues={issues} reason="config.json is invalid: 2 problems" width={90} height={20} />).lastFrame()!.split('\n');
    expect(lines.some((line) => line.includes('│ /x/config.json is not valid JSON: Unexpected token'))).toBe(true);
    expect(lines.some((line) => line.includes('│ timezon: unknown key; did you mean "timezone"?'))).toBe(true);
    expect(lines.join('\n')).not.toContain(': /x/config.json');
  });
});
