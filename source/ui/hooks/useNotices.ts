import { useState } from 'react';

export interface Notice {
  atMs: number;
  text: string;
}

/** How many notices the message history keeps. */
export const MAX_NOTICES = 100;

/**
 * The bottom line's notice, and the history of every notice shown (newest last), so a message that
 * was replaced before it was read can be recalled (`M`).
 */
export function useNotices(first: string): { notice: string; notices: readonly Notice[]; setNotice: (text: string) => void } {
  const [notices, setNotices] = useState<readonly Notice[]>([]);
  const [notice, setCurrent] = useState(first);
  const setNotice = (text: string) => {
    setCurrent(text);
    setNotices((list) => [...list, { atMs: Date.now(), text }].slice(-MAX_NOTICES));
  };
  return { notice, notices, setNotice };
}
