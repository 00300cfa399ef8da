const palette = {
  ok: 'green',
  warn: 'yellow',
  error: 'red',
  dim: 'gray',
  accent: 'cyan',
  caution: 'red',
} as const;

type Meaning = keyof typeof palette;

/** Whether the console draws without colour: `NO_COLOR` set to anything but '' (no-color.org); `--no-color` sets it. */
export function wantsNoColor(env: NodeJS.ProcessEnv): boolean {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== '';
}

/**
 * Colours by meaning, so panes agree on what green or red says. Under NO_COLOR every one is
 * undefined (read at each draw): text stays plain while inverse and bold remain, so the selected
 * row and the active tab still show.
 */
export const theme = Object.fromEntries(Object.keys(palette).map((name) => [name, undefined])) as { readonly [K in Meaning]: (typeof palette)[K] | undefined };
for (const name of Object.keys(palette) as Meaning[]) {
  Object.defineProperty(theme, name, { get: () => (wantsNoColor(process.env) ? undefined : palette[name]), enumerable: true });
}

/**
 * `--no-color`: sets NO_COLOR for the console, and takes the flag out of argv before Ink loads,
 * since Ink's chalk would read it there and drop inverse and bold too.
 */
export function applyNoColorFlag(env: NodeJS.ProcessEnv, argv: string[]): void {
  env.NO_COLOR = '1';
  for (let index = argv.indexOf('--no-color'); index !== -1; index = argv.indexOf('--no-color')) argv.splice(index, 1);
}
