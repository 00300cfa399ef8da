import type { Key } from 'ink';
import { useState } from 'react';

/**
 * The selected row of a list in an overlay, and the window of rows that shows it: `move` takes
 * j/k and the arrows (true when it took the key).
 */
export function useSelection(count: number, visible: number) {
  const [selected, setSelected] = useState(0);
  const index = Math.min(selected, Math.max(0, count - 1));
  const first = Math.max(0, Math.min(index - visible + 1, count - visible));
  const move = (input: string, key: Key): boolean => {
    if (key.downArrow || input === 'j') setSelected(Math.min(index + 1, Math.max(0, count - 1)));
    else if (key.upArrow || input === 'k') setSelected(Math.max(0, index - 1));
    else return false;
    return true;
  };
  return { index, first, move };
}
