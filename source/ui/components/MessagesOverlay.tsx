import { Box, Text } from 'ink';
import { useState } from 'react';
import { clockTime, fit } from '../format.js';
import type { Notice } from '../hooks/useNotices.js';
import { useSelection } from '../hooks/useSelection.js';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';
import { ScrollText } from './ScrollText.js';

/**
 * The notices and errors shown on the bottom line, newest first, one line each: j/k select, Enter
 * shows the selected one whole (wrapped, scrolling like a details view), Esc goes back; Esc (or M)
 * closes.
 */
export function MessagesOverlay({ notices, width, height, onClose }: { notices: readonly Notice[]; width: number; height: number; onClose: () => void }) {
  /** The message shown whole: kept by value, since newer ones move the list under it. */
  const [open, setOpen] = useState<Notice | undefined>();
  const visible = Math.max(1, height - 3);
  const newestFirst = [...notices].reverse();
  const { index: selected, first, move } = useSelection(newestFirst.length, visible);
  // Under the open message's view (a newer layer takes the scroll keys first): Esc goes back.
  useKeys((input, key) => {
    if (open) {
      if (key.escape) setOpen(undefined);
    } else if (key.escape || input === 'q' || input === 'M') onClose();
    else if (key.return) setOpen(newestFirst[selected]);
    else move(input, key);
    return true;
  }, { layer: 'overlay', modal: true });
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.accent} paddingX={1}>
      {open ? (
        <ScrollText lines={[{ text: `${clockTime(open.atMs)} ${open.text}` }]} height={height - 2} width={width - 4} focused layer="overlay" hint="Esc back to the messages" />
      ) : (
        <>
          <Text bold wrap="truncate">{fit(`Messages (${notices.length}, newest first) · j/k select · Enter whole message · Esc close`, width - 4)}</Text>
          {newestFirst.length === 0 ? <Text color={theme.dim}>No messages yet.</Text> : null}
          {newestFirst.slice(first, first + visible).map((notice, index) => (
            <Text key={`${notice.atMs}-${first + index}`} inverse={first + index === selected} wrap="truncate">{fit(`${clockTime(notice.atMs)} ${notice.text}`, width - 4)}</Text>
          ))}
        </>
      )}
    </Box>
  );
}
