import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const children: RunningCli[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
    await child.exited;
  }
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A Telegram API that records each sendMessage and never answers: the gateway is killed mid-send. */
async function hangingTelegram() {
  const calls: string[] = [];
  const server = http.createServer((req) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => calls.push(`${req.url} ${body}`));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

describe('kill -9 while a chat message is being sent', () => {
  it('is not sent again after the restart: the send is marked uncertain and listed as such', { timeout: 90_000 }, async () => {
    const telegram = await hangingTelegram();
    const home = preparedHome((config) => {
      config.platforms!.webhook!.extra!.routes = { chat: { secret: SECRET, prompt: 'Say {action}', deliver: 'telegram:42' } };
      (config.platforms as Record<string, unknown>).telegram = { enabled: true, bot_token: '123:ABC', api_base_url: telegram.url };
    });
    const first = startCli(['gateway', '--home', home.root]);
    children.push(first);
    await first.waitFor('Control channel listening', 30_000);
    const url = /webhooks\s+(http:\/\/127\.0\.0\.1:\d+)/.exec((await runCli(['status', '--home', home.root])).stdout)![1]!;
    const body = JSON.stringify({ action: 'hello' });
    const posted = await fetch(`${url}/webhooks/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'push', 'kill-me') }, body });
    expect(posted.status).toBe(202);
    await waitUntil(() => telegram.calls.length === 1, 20_000, 'the message on its way to Telegram');
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startCli(['gateway', '--home', home.root]);
    children.push(second);
    await second.waitFor('Control channel listening', 30_000);
    const delivery = await waitUntil(async () => {
      const rows = JSON.parse((await runCli(['webhook', 'deliveries', '--json', '--home', home.root])).stdout) as Array<{ deliveryId: string; state: string; deliveryDetail: string | null }>;
      const row = rows.find((candidate) => candidate.deliveryId === 'kill-me');
      return row && row.state !== 'running' && row.state !== 'queued' ? row : undefined;
    }, 30_000, 'the delivery settled after the restart');
    expect(delivery).toMatchObject({ state: 'delivery_failed', deliveryDetail: expect.stringContaining('uncertain: the gateway stopped while this was being sent to telegram:42') });
    const listed = JSON.parse((await runCli(['deliveries', 'list', '--json', '--home', home.root])).stdout) as Array<{ id: string; status: string; target: string }>;
    expect(listed.filter((row) => row.target === 'telegram:42').map((row) => row.status)).toEqual(['uncertain']);
    expect(second.output()).toContain('marked uncertain');
    // Telegram got the message once: the restart did not post it again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(telegram.calls).toHaveLength(1);
  });
});
