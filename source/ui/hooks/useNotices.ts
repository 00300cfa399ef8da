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
export function useNotices(first: string): { notice: Notice; notices: readonly Notice[]; setNotice: (text: string) => void } {
  const [notices, setNotices] = useState<readonly Notice[]>([]);
  const [notice, setCurrent] = useState<Notice>(() => ({ atMs: Date.now(), text: first }));
  const setNotice = (text: string) => {
    const entry = { atMs: Date.now(), text };
    setCurrent(entry);
    setNotices((list) => [...list, entry].slice(-MAX_NOTICES));
  };
  return { notice, notices, setNotice };
}
