/**
 * The rows a terminal shows after `written` (what a program wrote to it), for the few controls readline
 * writes: carriage return, newline, and the CSI moves and clears (A B C D G J K). Enough to see where a
 * prompt ends up, not an emulator.
 */
export function screenOf(written: string, columns = 80): string[] {
  const rows: string[] = [''];
  let row = 0;
  let col = 0;
  const put = (char: string) => {
    if (col >= columns) { row += 1; col = 0; }
    rows[row] = (rows[row] ?? '').padEnd(col).slice(0, col) + char + (rows[row] ?? '').slice(col + 1);
    col += 1;
  };
  // eslint-disable-next-line no-control-regex -- a control sequence starts with ESC
  for (const [, csi, arg, command, char] of written.matchAll(/(\x1b\[([0-9;]*)([A-Za-z]))|([\s\S])/g)) {
    const n = Number(arg || (command === 'J' || command === 'K' ? 0 : 1));
    if (csi) {
      if (command === 'A') row = Math.max(0, row - n);
      if (command === 'B') row += n;
      if (command === 'C') col += n;
      if (command === 'D') col = Math.max(0, col - n);
      if (command === 'G') col = n - 1;
      if (command === 'J' || command === 'K') rows[row] = (rows[row] ?? '').slice(0, col);
      if (command === 'J') rows.splice(row + 1);
    } else if (char === '\r') col = 0;
    else if (char === '\n') { row += 1; col = 0; }
    else put(char!);
    while (rows.length <= row) rows.push('');
  }
  return rows.map((line) => line.trimEnd());
}
