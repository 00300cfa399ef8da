/** A display to show a browser on: macOS, or an X11/Wayland session (never over plain SSH or in CI). */
export function canOpenBrowser(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'darwin') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * Opens `url` with `open` (macOS) or `xdg-open`, detached; any failure is ignored because the URL is
 * printed as well and a pasted redirect URL completes the login just the same.
 */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): void {
  // execa is loaded on first use, like every execa caller.
  void import('execa').then(({ execa }) => {
    const child = execa(platform === 'darwin' ? 'open' : 'xdg-open', [url], { detached: true, stdio: 'ignore', reject: false });
    child.unref();
    return child;
  }).catch(() => {
    // No opener installed: the printed URL is the fallback.
  });
}
