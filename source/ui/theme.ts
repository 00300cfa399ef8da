/** Colours by meaning, so panes agree on what green or red says. */
export const theme = {
  ok: 'green',
  warn: 'yellow',
  error: 'red',
  dim: 'gray',
  accent: 'cyan',
  caution: 'red',
} as const;
