import { useState } from 'react';

/** A selection over a long list and the window of rows that fits: only visible rows are rendered. */
export function useSelectableList(length: number, height: number) {
  const [selected, setSelected] = useState(0);
  const index = Math.min(Math.max(0, selected), Math.max(0, length - 1));
  const rows = Math.max(1, height);
  const start = Math.min(Math.max(0, index - Math.floor(rows / 2)), Math.max(0, length - rows));
  return {
    index,
    start,
    end: Math.min(length, start + rows),
    up: () => setSelected(Math.max(0, index - 1)),
    down: () => setSelected(Math.min(Math.max(0, length - 1), index + 1)),
  };
}
