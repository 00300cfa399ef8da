/**
 * C0 and C1 control characters and DEL: what must never reach a header line, a terminal or an
 * operator's confirmation from a sender's or a link's text (ANSI escape sequences start with one).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Each control character made visible as `\xNN`. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Control characters (runs of them) replaced by one space: for header values. */
export function spaceControls(text: string): string {
  return text.replace(CONTROL, ' ').replace(/ {2,}/g, ' ');
}
