import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DeliveryRequest, DeliveryResult } from './types.js';

/**
 * `local`: a Markdown file under the home. Webhooks: deliveries/<route>/<delivery_id>.md;
 * jobs: cron/output/<job_id>/<timestamp>.md; console runs: deliveries/console/<run_id>.md.
 */
export async function deliverToLocal(homeRoot: string, request: DeliveryRequest, now: () => number): Promise<DeliveryResult> {
  const file = localPath(homeRoot, request, now());
  const heading = request.failed ? '# Run failed\n\n' : '';
  try {
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    return { ok: true, detail: await writeNew(file, `${heading}${request.output}\n`) };
  } catch (error) {
    return { ok: false, reason: `cannot write ${file}: ${(error as Error).message}` };
  }
}

/** Never over an existing file (a retry, or a name taken before): `<name>-2.md`, `-3`, ... instead. */
async function writeNew(file: string, text: string): Promise<string> {
  const { dir, name, ext } = path.parse(file);
  for (let copy = 1; ; copy += 1) {
    const target = copy === 1 ? file : path.join(dir, `${name}-${copy}${ext}`);
    try {
      await fs.writeFile(target, text, { mode: 0o600, flag: 'wx' });
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || copy >= 1000) throw error;
    }
  }
}

export function localPath(homeRoot: string, request: DeliveryRequest, atMs: number): string {
  const subject = request.subject;
  if (subject.kind === 'webhook') return path.join(homeRoot, 'deliveries', safeName(subject.route), `${safeName(subject.deliveryId)}.md`);
  if (subject.kind === 'job') return path.join(homeRoot, 'cron', 'output', safeName(subject.jobId), `${new Date(atMs).toISOString().replaceAll(':', '-')}.md`);
  return path.join(homeRoot, 'deliveries', 'console', `${safeName(subject.runId)}.md`);
}

/** Names longer than this (encoded) end in a hash of the whole name instead. */
const MAX_NAME = 120;

/**
 * Delivery ids and route names come from senders: one file name per value (reversible %-encoding
 * of everything but letters, digits, `_`, `-` and inner dots; a leading dot is encoded too, so no
 * name is `.`, `..` or hidden), and long ones shortened with a SHA-256 of the whole value.
 */
export function safeName(value: string): string {
  const encoded = value.replace(/[^A-Za-z0-9._-]/g, (char) => [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')).replace(/^\./, '%2E');
  if (encoded === '') return '%';
  if (encoded.length <= MAX_NAME) return encoded;
  return `${encoded.slice(0, MAX_NAME - 18)}~${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
}
