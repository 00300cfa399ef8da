import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { ListView, type ListRow } from '../../source/ui/components/ListView.js';
import { InputRouter } from '../../source/ui/input-router.js';
import { keys, waitForFrame } from '../helpers/ink.js';

const rowsOf = (names: string[]): ListRow[] => names.map((name) => ({ key: name, text: name }));
const list = (names: string[]) => <InputRouter><ListView rows={rowsOf(names)} height={6} width={40} focused empty="none" title="Servers" /></InputRouter>;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('list selection', () => {
  it('follows the selected row by key when the rows reorder, on the top row too', async () => {
    const view = render(list(['fx', 'gh', 'hy']));
    await waitForFrame(view.lastFrame, (frame) => frame.includes('1/3'));
    view.rerender(list(['gh', 'hy', 'fx']));
    await waitForFrame(view.lastFrame, (frame) => frame.includes('3/3'));
    view.stdin.write(keys.up);
    await tick();
    await waitForFrame(view.lastFrame, (frame) => frame.includes('2/3'));
    view.rerender(list(['hy', 'fx', 'gh']));
    expect(await waitForFrame(view.lastFrame, (frame) => frame.includes('1/3'))).toContain('hy');
    view.unmount();
  });
});
