/** Waits until the rendered frame satisfies `check` (no sleeps: polls the frame); on timeout the error shows the last frame. */
export async function waitForFrame(lastFrame: () => string | undefined, check: (frame: string) => boolean, timeout = 3000): Promise<string> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const frame = lastFrame() ?? '';
    if (check(frame)) return frame;
    if (Date.now() > deadline) throw new Error(`Frame never matched ${check.toString()}; last frame:\n${frame}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const keys = { escape: '\u001B', enter: '\r', up: '\u001B[A', down: '\u001B[B', tab: '\t', shiftTab: '\u001B[Z' };
