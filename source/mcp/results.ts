import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ToolOutput } from '../agent/types.js';
import { sanitizeName } from './names.js';

export const MAX_RESULT_BYTES = 64 * 1024;

export interface ResultContext {
  server: string;
  /** Where images and audio are written (`<home>/mcp-media`). */
  mediaDir: string;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg',
  'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mpeg': 'mp3', 'audio/ogg': 'ogg', 'audio/webm': 'webm', 'audio/mp4': 'm4a',
};

/**
 * An MCP tools/call (or resource/prompt) result as the model sees it: text parts joined, images and
 * audio saved under the home with their path in the text, structuredContent kept, isError kept,
 * capped at 64 KiB with a marker.
 */
export function convertToolResult(result: Record<string, unknown>, context: ResultContext): ToolOutput {
  const parts: string[] = [];
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  for (const block of content) parts.push(describeBlock(block, context));
  const structured = result.structuredContent;
  if (parts.length === 0 && structured !== undefined) parts.push(JSON.stringify(structured));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult));
  const output: ToolOutput = { text: truncate(parts.join('\n')) };
  if (structured !== undefined) output.structured = structured;
  if (result.isError === true) output.isError = true;
  return output;
}

function describeBlock(block: Record<string, unknown>, context: ResultContext): string {
  switch (block.type) {
    case 'text':
      return String(block.text ?? '');
    case 'image':
    case 'audio': {
      const mimeType = String(block.mimeType ?? 'application/octet-stream');
      const file = saveMedia(String(block.data ?? ''), mimeType, context);
      return `[${block.type} ${mimeType} saved to ${file}]`;
    }
    case 'resource': {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === 'string') return `[resource ${String(resource.uri)}]\n${resource.text}`;
      return `[resource ${String(resource.uri)} (${String(resource.mimeType ?? 'binary')}, ${String(resource.blob ?? '').length} base64 characters)]`;
    }
    case 'resource_link':
      return `[resource link ${String(block.uri)}${block.name ? ` (${String(block.name)})` : ''}]`;
    default:
      return JSON.stringify(block);
  }
}

function saveMedia(base64: string, mimeType: string, context: ResultContext): string {
  const dir = path.join(context.mediaDir, sanitizeName(context.server));
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ext = EXTENSIONS[mimeType.toLowerCase()] ?? 'bin';
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.${ext}`);
  fs.writeFileSync(file, Buffer.from(base64, 'base64'), { mode: 0o600 });
  return file;
}

/** Cuts at MAX_RESULT_BYTES (on a character boundary) and says so. */
export function truncate(text: string, maxBytes = MAX_RESULT_BYTES): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  let cut = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return `${cut}\n[truncated: the result was ${bytes} bytes, only the first ${maxBytes} are shown]`;
}
