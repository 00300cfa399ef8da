/** Short human durations: 5s, 3m 20s, 2h 05m, 3d 4h. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** HH:MM:SS local time (by hand: toTimeString() is slow for a list of 500 rows at 30 renders a second). */
export function clockTime(ms: number): string {
  const date = new Date(ms);
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

function two(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/**
 * Marks a cut line. ASCII on purpose: Ink measures every line with string-width, which takes about
 * 135 µs for an 80-column line holding one `…` against 0.25 µs for plain ASCII; with every row of a
 * full screen cut, that was most of a frame's 25 ms.
 */
export const CUT_MARK = '~';

/** Cuts a line to `width` characters, marking the cut. */
export function fit(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ');
  if (width <= 1) return flat.slice(0, Math.max(0, width));
  return flat.length > width ? `${flat.slice(0, width - 1)}${CUT_MARK}` : flat;
}

/** A fixed-width column: padded to `width`, or cut with the mark, so a long name never shifts the next column. */
export function column(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ');
  if (flat.length <= width) return flat.padEnd(width);
  return width <= 1 ? flat.slice(0, Math.max(0, width)) : `${flat.slice(0, width - 1)}${CUT_MARK}`;
}

/** Columns a character takes: 2 for East Asian wide and emoji ranges, else 1 (JSON escapes control characters). */
function columnsOf(code: number): number {
  const wide = (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3)
    || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60)
    || (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1faff) || (code >= 0x20000 && code <= 0x3fffd);
  return wide ? 2 : 1;
}

/**
 * Text wrapped to `width` columns, every character kept (wide characters take two). `words` breaks
 * after the last space of a line when there is one in its second half (prose); without it the
 * break is exact (JSON arguments, where every character must show where it is).
 */
export function wrapText(text: string, width: number, words = false): string[] {
  const room = Math.max(2, width);
  return text.split('\n').flatMap((line) => {
    if (line.length <= room && !/[^ -\u10ff]/.test(line)) return [line];
    const out: string[] = [];
    let current = '';
    let used = 0;
    for (const char of line) {
      const columns = columnsOf(char.codePointAt(0)!);
      if (used + columns > room) {
        const space = words ? current.lastIndexOf(' ') : -1;
        const cut = space >= room / 2 ? space + 1 : current.length;
        out.push(current.slice(0, cut));
        current = current.slice(cut);
        used = columnsIn(current);
      }
      current += char;
      used += columns;
    }
    out.push(current);
    return out;
  });
}

function columnsIn(text: string): number {
  let used = 0;
  for (const char of text) used += columnsOf(char.codePointAt(0)!);
  return used;
}
