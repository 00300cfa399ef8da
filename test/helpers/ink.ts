import { expect } from 'vitest';

/** Waits until the rendered frame satisfies `check` (no sleeps: polls the frame). */
export async function waitForFrame(lastFrame: () => string | undefined, check: (frame: string) => boolean, timeout = 3000): Promise<string> {
  await expect.poll(() => check(lastFrame() ?? ''), { timeout, interval: 10 }).toBe(true);
  return lastFrame() ?? '';
}

export const keys = { escape: '\u001B', enter: '\r', up: '\u001B[A', down: '\u001B[B', tab: '\t', shiftTab: '\u001B[Z' };
