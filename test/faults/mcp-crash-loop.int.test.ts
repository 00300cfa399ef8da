import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_CONNECT_ATTEMPTS } from '../../source/mcp/backoff.js';
import { call, FIXTURE_SERVER, NODE, servers, startedManager, until } from '../helpers/mcp.js';
import { tempHome } from '../helpers/temp-home.js';

const CRASH_SERVER = fileURLToPath(new URL('../fixtures/mcp/crash-server.mjs', import.meta.url));
/** Fast pacing; once `failed`, the next attempt is a minute away (far beyond the test). */
const FAST = { minMs: 10, maxMs: 40, failedRetryMs: 60_000 };

function spawnsIn(file: string): number {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

describe('an MCP server that crashes at start (issue #18 item 13)', () => {
  it.each([
    ['exits at once', 'exit', /fatal: missing API key/],
    ['dies right after its handshake', 'after-init', /fatal: tools\/list crashed/],
  ])('%s: started MAX_CONNECT_ATTEMPTS times, then failed with its stderr tail; a reconnect starts over', async (_, mode, lastLine) => {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    const log = path.join(home.root, 'spawns.log');
    const { manager } = startedManager(home.root, { retry: true, backoff: FAST });
    await manager.start(servers({ crashy: { command: NODE, args: [CRASH_SERVER, mode], env: { SPAWN_LOG: log } } }), { wait: true });

    await until(() => manager.list()[0]!.status === 'failed', 'status failed', 10_000);
    expect(spawnsIn(log)).toBe(MAX_CONNECT_ATTEMPTS);
    const reason = manager.list()[0]!.reason!;
    expect(reason).toMatch(/^server crashy: connect failed: .*\(stderr: crash-server \d+ starting .*\); 5 failed attempts in a row, retrying every 1 minutes/);
    expect(reason).toMatch(lastLine);
    // The tail is the last process's own output, not a mix of attempts.
    expect(reason.match(/starting/g)).toHaveLength(1);
    // Absence of a respawn needs a window: the old loop started a process every few milliseconds here.
    await sleep(500);
    expect(spawnsIn(log)).toBe(MAX_CONNECT_ATTEMPTS);

    expect(await manager.reconnect('crashy')).toBe(true);
    await until(() => spawnsIn(log) === 2 * MAX_CONNECT_ATTEMPTS && manager.list()[0]!.status === 'failed', 'a second round of attempts', 10_000);
  });

  it('a call while a reconnect is scheduled fails at once with the reason and starts nothing', async () => {
    const home = tempHome();
    const { manager, registry } = startedManager(home.root, { retry: true, backoff: { minMs: 60_000, maxMs: 60_000 } });
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'] } }), { wait: true });
    await expect(call(registry, 'mcp__fx__crash')).rejects.toThrow(/server fx: tool crash failed/);
    await until(() => manager.list()[0]!.status === 'degraded', 'degraded');
    await expect(call(registry, 'mcp__fx__echo', { text: 'x' })).rejects.toThrow(/^server fx: not connected \(degraded\): server fx: connection closed .*attempt 1 of 5, next in/);
    expect(manager.list()[0]!.status).toBe('degraded');
  });
});
