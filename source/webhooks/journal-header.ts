import type { NewDelivery } from '../store/webhook-deliveries.js';

/**
 * The intake journal's frame header (every field of a delivery but its body), written into the
 * journal's slab without building a string first: JSON.stringify of it was the largest part of a
 * journal append. Strings are a u32 byte length and UTF-8; the time is a float64.
 *
 *   0x01 | receivedAtMs | route | deliveryId | event | prompt | target | replayOf ('' for none)
 *        | u8 header count | (name, value)* | u8 skill count | skill* | targetExtra as JSON ('' when empty)
 *
 * Frames of earlier versions hold the header as JSON (it starts with `{`): still read, so a journal
 * left by a crash is recovered by the next version too.
 */
export type JournalHeader = Omit<NewDelivery, 'body'>;

const BINARY = 0x01;
const JSON_START = 0x7b; // '{'

/** The most bytes `writeHeader` may use for `row` (UTF-8 takes at most 3 bytes per UTF-16 unit). */
export function headerBytesAtMost(row: JournalHeader): number {
  let units = row.route.length + row.deliveryId.length + row.event.length + row.prompt.length + row.target.length + (row.replayOf?.length ?? 0);
  let strings = 6;
  for (const name in row.headers) {
    units += name.length + row.headers[name]!.length;
    strings += 2;
  }
  for (const skill of row.skills) units += skill.length;
  strings += row.skills.length + 1;
  const extra = extraText(row);
  units += extra.length;
  return 1 + 8 + 2 + strings * 4 + units * 3;
}

/** Writes the header of `row` at `at` (room for headerBytesAtMost(row) is there); returns where it ends. */
export function writeHeader(buffer: Buffer, at: number, row: JournalHeader): number {
  buffer[at] = BINARY;
  buffer.writeDoubleLE(row.receivedAtMs, at + 1);
  let end = at + 9;
  end = writeString(buffer, end, row.route);
  end = writeString(buffer, end, row.deliveryId);
  end = writeString(buffer, end, row.event);
  end = writeString(buffer, end, row.prompt);
  end = writeString(buffer, end, row.target);
  end = writeString(buffer, end, row.replayOf ?? '');
  const countAt = end;
  let count = 0;
  end += 1;
  for (const name in row.headers) {
    end = writeString(buffer, end, name);
    end = writeString(buffer, end, row.headers[name]!);
    count += 1;
  }
  buffer[countAt] = count;
  buffer[end] = row.skills.length;
  end += 1;
  for (const skill of row.skills) end = writeString(buffer, end, skill);
  return writeString(buffer, end, extraText(row));
}

/** The header in `buffer` from `at` to `end`; throws when it is not one. */
export function readHeader(buffer: Buffer, at: number, end: number): JournalHeader {
  if (buffer[at] === JSON_START) return JSON.parse(buffer.toString('utf8', at, end)) as JournalHeader;
  if (buffer[at] !== BINARY) throw new Error('not a journal header');
  const reader = { at: at + 9 };
  const text = () => readString(buffer, reader, end);
  const receivedAtMs = buffer.readDoubleLE(at + 1);
  const route = text();
  const deliveryId = text();
  const event = text();
  const prompt = text();
  const target = text();
  const replayOf = text();
  const headers: Record<string, string> = {};
  for (let count = buffer[reader.at++]!; count > 0; count -= 1) {
    const name = text();
    headers[name] = text();
  }
  const skills: string[] = [];
  for (let count = buffer[reader.at++]!; count > 0; count -= 1) skills.push(text());
  const extra = text();
  if (reader.at !== end) throw new Error('journal header length mismatch');
  return { route, deliveryId, event, headers, prompt, skills, target, targetExtra: extra ? JSON.parse(extra) as JournalHeader['targetExtra'] : {}, ...(replayOf ? { replayOf } : {}), receivedAtMs };
}

function extraText(row: JournalHeader): string {
  for (const _key in row.targetExtra) return JSON.stringify(row.targetExtra);
  return '';
}

function writeString(buffer: Buffer, at: number, text: string): number {
  const length = text.length === 0 ? 0 : buffer.write(text, at + 4);
  buffer.writeUInt32LE(length, at);
  return at + 4 + length;
}

function readString(buffer: Buffer, reader: { at: number }, end: number): string {
  const length = buffer.readUInt32LE(reader.at);
  const start = reader.at + 4;
  if (start + length > end) throw new Error('journal header string past its end');
  reader.at = start + length;
  return buffer.toString('utf8', start, start + length);
}
