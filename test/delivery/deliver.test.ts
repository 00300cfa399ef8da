import fs from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createDeliver, createDeliveryService } from '../../source/delivery/deliver.js';
import type { DeliverySubject } from '../../source/delivery/types.js';
import { sqliteBackends } from '../../source/store/async-domains.js';
import { openStore } from '../../source/store/database.js';
import { tempHome } from '../helpers/temp-home.js';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  return { logger: pino(sink), lines };
}

describe('deliver: log and local', () => {
  const atMs = Date.UTC(2026, 10, 21, 9, 30, 0);

  it('log writes the route, delivery id and output to the log', async () => {
    const { logger, lines } = capturingLogger();
    const deliver = createDeliver({ homeRoot: tempHome().root, logger });
    const result = await deliver({ target: 'log', output: 'All good', subject: { kind: 'webhook', route: 'gh', deliveryId: 'd-1', event: 'push' } });
    expect(result).toEqual({ ok: true, detail: 'written to gateway.log' });
    expect(lines[0]).toMatchObject({ msg: 'Delivered to log: webhook gh delivery d-1', output: 'All good', delivery: { route: 'gh', deliveryId: 'd-1' } });
    expect(lines).toHaveLength(1); // that line is the record: no second 'Delivered ... to log' line
    // A webhook's output is a line per delivery, which the console's Logs pane leaves out; a job's stays.
    expect(lines[0]).toMatchObject({ scope: 'delivery' });
    await deliver({ target: 'log', output: 'Done', subject: { kind: 'job', jobId: 'j1', jobName: 'nightly', runId: 'r1' } });
    expect(lines[1]).toMatchObject({ msg: 'Delivered to log: job nightly (j1) run r1' });
    expect(lines[1]).not.toHaveProperty('scope');
  });

  it('local writes webhook and job outputs under the home, owner-only, even when empty', async () => {
    const home = tempHome();
    const deliver = createDeliver({ homeRoot: home.root, logger: pino({ level: 'silent' }), now: () => atMs });
    const webhook = await deliver({ target: 'local', output: '', subject: { kind: 'webhook', route: 'gh', deliveryId: '../../escape', event: 'push' } });
    expect(webhook).toEqual({ ok: true, detail: `${home.root}/deliveries/gh/%2E.%2F..%2Fescape.md` });
    expect(fs.readFileSync(`${home.root}/deliveries/gh/%2E.%2F..%2Fescape.md`, 'utf8')).toBe('\n');
    const job = await deliver({ target: 'local', output: 'boom', failed: true, subject: { kind: 'job', jobId: 'j1', jobName: 'nightly', runId: 'r1' } });
    const file = `${home.root}/cron/output/j1/2026-11-21T09-30-00.000Z.md`;
    expect(job).toEqual({ ok: true, detail: file });
    expect(fs.readFileSync(file, 'utf8')).toBe('# Run failed\n\nboom\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('names the cluster node whose disk holds a log or local output (and a failure to write it), no other target', async () => {
    const home = tempHome();
    const deliver = createDeliver({ homeRoot: home.root, logger: pino({ level: 'silent' }), now: () => atMs, node: 'vm-1a2b3c4d' });
    const subject = { kind: 'webhook' as const, route: 'gh', deliveryId: 'd-1', event: 'push' };
    expect(await deliver({ target: 'log', output: 'x', subject })).toEqual({ ok: true, detail: 'written to gateway.log (node vm-1a2b3c4d)' });
    expect(await deliver({ target: 'local', output: 'x', subject })).toEqual({ ok: true, detail: `${home.root}/deliveries/gh/d-1.md (node vm-1a2b3c4d)` });
    fs.writeFileSync(`${home.root}/deliveries/blocked`, ''); // a file where the route's folder would go
    const refused = await deliver({ target: 'local', output: 'x', subject: { ...subject, route: 'blocked' } });
    expect(refused.ok === false && refused.reason).toMatch(/^cannot write .*blocked\/d-1\.md: .* \(node vm-1a2b3c4d\)$/);
    expect(await deliver({ target: 'telegram:42', output: 'x', subject })).toMatchObject({ ok: false, reason: expect.not.stringContaining('vm-1a2b3c4d') });
  });

  it('keeps an origin output in a file when no console is attached, and fails a platform that is not enabled with the fix', async () => {
    const home = tempHome();
    const deliver = createDeliver({ homeRoot: home.root, logger: pino({ level: 'silent' }), now: () => atMs });
    expect(await deliver({ target: 'origin', output: 'x', subject: { kind: 'job', jobId: 'j', jobName: 'n', runId: 'r' } })).toEqual({
      ok: true, detail: `no console is attached to show it; kept in ${home.root}/cron/output/j/2026-11-21T09-30-00.000Z.md`,
    });
    expect(await deliver({ target: 'telegram:42', output: 'x', subject: { kind: 'console', runId: 'r' } })).toEqual({
      ok: false, reason: 'platforms.telegram is not enabled: set platforms.telegram.enabled to true and its credentials (bot_token)',
    });
  });
});

describe('deliver: a retry', () => {
  it('counts the attempt of each send, a file\'s included; only one that delivers tells what it was for, and a failure to record that does not undo it', async () => {
    const home = tempHome();
    const store = openStore(home.stateDb);
    try {
      const { logger, lines } = capturingLogger();
      const told: Array<{ subject: DeliverySubject; detail: string }> = [];
      let refuse = false;
      const service = createDeliveryService({
        homeRoot: home.root, logger, history: sqliteBackends(store).outputDeliveries,
        afterRetry: async (subject, detail) => {
          if (refuse) throw new Error('the store is gone');
          told.push({ subject, detail });
        },
      });
      const subject = { kind: 'job' as const, jobId: 'j1', jobName: 'nightly', runId: 'r1' };
      fs.mkdirSync(`${home.root}/cron/output`, { recursive: true });
      fs.writeFileSync(`${home.root}/cron/output/j1`, ''); // a file where the job's folder would go
      const first = await service.deliver({ target: 'local', output: 'x', subject });
      expect(first.ok).toBe(false);
      const recordOf = async () => (await service.history!.get(first.recordId!))!;
      expect((await recordOf()).attempts).toMatchObject([{ chunk: 0, attempt: 1, ok: false, error: expect.stringContaining('cannot write') }]);

      expect((await service.retry(first.recordId!)).ok).toBe(false);
      expect(await recordOf()).toMatchObject({ status: 'failed', attempts: [{ ok: false }, { ok: false }] });
      expect(told).toEqual([]);
      expect(service.failedCount()).toBe(1);

      fs.rmSync(`${home.root}/cron/output/j1`);
      refuse = true;
      const retried = await service.retry(first.recordId!);
      expect(retried).toMatchObject({ ok: true, detail: expect.stringContaining(`${home.root}/cron/output/j1/`) });
      expect(await recordOf()).toMatchObject({ status: 'delivered', attempts: [{ ok: false }, { ok: false }, { ok: true, error: null }] });
      expect(service.failedCount()).toBe(0);
      expect(lines.find((line) => line.level === 40 && String(line.msg).includes('was sent on retry'))?.msg)
        .toBe(`Delivery ${first.recordId} was sent on retry, but recording that on job nightly (j1) run r1 failed: the store is gone`);

      // A second failed record, delivered on its retry: its subject hears the new detail.
      refuse = false;
      fs.writeFileSync(`${home.root}/cron/output/j2`, '');
      const other = await service.deliver({ target: 'local', output: 'y', subject: { ...subject, jobId: 'j2', runId: 'r2' } });
      fs.rmSync(`${home.root}/cron/output/j2`);
      const delivered = await service.retry(other.recordId!);
      expect(told).toEqual([{ subject: { ...subject, jobId: 'j2', runId: 'r2' }, detail: (delivered as { detail: string }).detail }]);
    } finally {
      store.close();
    }
  });
});
