import clipboard from 'clipboardy';

/** Copies text; false when this machine has no clipboard (no display, no xclip/wl-copy). */
export async function copyToClipboard(text: string): Promise<boolean> {
  try {
    await clipboard.write(text);
    return true;
  } catch {
    return false;
  }
}
