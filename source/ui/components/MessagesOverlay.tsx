import { Box, Text } from 'ink';
import { useState } from 'react';
import { clockTime, fit } from '../format.js';
import type { Notice } from '../hooks/useNotices.js';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';

/** The notices and errors shown on the bottom line, newest first: j/k scroll, Esc (or M) closes. */
export function MessagesOverlay({ notices, width, height, onClose }: { notices: readonly Notice[]; width: number; height: number; onClose: () => void }) {
  const [first, setFirst] = useState(0);
  const visible = Math.max(1, height - 3);
  const newestFirst = [...notices].reverse();
  useKeys((input, key) => {
    if (key.escape || input === 'q' || input === 'M') onClose();
    else if (key.downArrow || input === 'j') setFirst((n) => Math.min(n + 1, Math.max(0, newestFirst.length - visible)));
    else if (key.upArrow || input === 'k') setFirst((n) => Math.max(0, n - 1));
    return true;
  }, { layer: 'overlay', modal: true });
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.accent} paddingX={1}>
      <Text bold wrap="truncate">{fit(`Messages (${notices.length}, newest first) · j/k scroll · Esc close`, width - 4)}</Text>
      {newestFirst.length === 0 ? <Text color={theme.dim}>No messages yet.</Text> : null}
      {newestFirst.slice(first, first + visible).map((notice, index) => (
        <Text key={`${notice.atMs}-${first + index}`} wrap="truncate">{fit(`${clockTime(notice.atMs)} ${notice.text}`, width - 4)}</Text>
      ))}
    </Box>
  );
}
