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
    await fs.writeFile(file, `${heading}${request.output}\n`, { mode: 0o600 });
    return { ok: true, detail: file };
  } catch (error) {
    return { ok: false, reason: `cannot write ${file}: ${(error as Error).message}` };
  }
}

export function localPath(homeRoot: string, request: DeliveryRequest, atMs: number): string {
  const subject = request.subject;
  if (subject.kind === 'webhook') return path.join(homeRoot, 'deliveries', safeName(subject.route), `${safeName(subject.deliveryId)}.md`);
  if (subject.kind === 'job') return path.join(homeRoot, 'cron', 'output', safeName(subject.jobId), `${new Date(atMs).toISOString().replaceAll(':', '-')}.md`);
  return path.join(homeRoot, 'deliveries', 'console', `${safeName(subject.runId)}.md`);
}

/** Delivery ids come from senders: never let one climb out of its folder. */
function safeName(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return cleaned === '' ? '_' : cleaned.slice(0, 200);
}
