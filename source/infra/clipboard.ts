/** Copies text; false when this machine has no clipboard (no display, no xclip/wl-copy). */
export async function copyToClipboard(text: string): Promise<boolean> {
  try {
    // Loaded on first use: clipboardy loads execa and its platform helpers, which the console's start does not need.
    const { default: clipboard } = await import('clipboardy');
    await clipboard.write(text);
    return true;
  } catch {
    return false;
  }
}
