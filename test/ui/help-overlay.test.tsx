import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { HelpOverlay } from '../../source/ui/components/HelpOverlay.js';
import { InputRouter } from '../../source/ui/input-router.js';
import { keymap } from '../../source/ui/keymap.js';
import { slashCommands } from '../../source/ui/slash-commands.js';
import { waitForFrame } from '../helpers/ink.js';

const views: Array<{ unmount(): void }> = [];
afterEach(() => { for (const view of views.splice(0)) view.unmount(); });

/** The help at a terminal `columns` wide, tall enough to show every line at once. */
function help(columns: number) {
  const overlay = <InputRouter><HelpOverlay width={columns} height={120} /></InputRouter>;
  const view = render(overlay);
  // ink-testing-library's terminal is 100 columns: widen it, then draw again at that width.
  Object.defineProperty(view.stdout, 'columns', { value: columns, configurable: true });
  view.stdout.emit('resize');
  view.rerender(overlay);
  views.push(view);
  return view;
}

describe('the help overlay (?)', () => {
  it.each([140, 100, 80])('at %i columns cuts no line: every description shows whole, wrapped in its column', async (columns) => {
    const { lastFrame } = help(columns);
    const frame = await waitForFrame(lastFrame, (f) => f.includes('close this help'));
    const lines = frame.split('\n');
    expect(lines.every((line) => line.length <= columns)).toBe(true);
    expect(frame).not.toMatch(/[~…]/);
    // Whole words (a cut one would be missing its end), in order within each description.
    const text = lines.map((line) => line.replace(/^[│ ]+|[│ ]+$/g, '')).join(' ');
    for (const binding of keymap) {
      for (const word of binding.description.split(' ')) expect(text, `"${word}" of ${binding.keys}`).toContain(word);
    }
    for (const command of slashCommands) expect(text).toContain(command.usage);
  });

  it('uses two columns at 140 and lists /help among the commands', async () => {
    const { lastFrame } = help(140);
    const frame = await waitForFrame(lastFrame, (f) => f.includes('close this help'));
    expect(frame).toMatch(/Tab {9}next pane {20,}\S/);
    expect(frame).toMatch(/^│ \/help {20,}list these commands/m);
  });
});
