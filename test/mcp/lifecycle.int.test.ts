import { isAlive } from '../helpers/process.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/temp-home.js';
import { call, FIXTURE_SERVER, makeManager, startedManager, NODE, scriptedApprovals, servers, until } from '../helpers/mcp.js';

const WRAPPER = path.join(path.dirname(FIXTURE_SERVER), 'wrapper.mjs');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

describe('stdio lifecycle', () => {
  it('closing kills the whole process group (no orphan behind a wrapper)', async () => {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    const pidFile = path.join(home.root, 'grandchild.pid');
    const { manager, registry } = makeManager(home.root);
    await manager.start(servers({ wrapped: { command: NODE, args: [WRAPPER], env: { PID_FILE: pidFile } } }), { wait: true });
    const pid = Number((await call(registry, 'mcp__wrapped__pid')).text);
    expect(Number(fs.readFileSync(pidFile, 'utf8'))).toBe(pid);
    expect(isAlive(pid)).toBe(true);
    await manager.stop();
    await until(() => !isAlive(pid), 'the grandchild to exit', 10_000);
  });

  it('the child gets the baseline environment plus env, never our other variables', async () => {
    const home = tempHome();
    process.env.SWITCHBOARD_TEST_SECRET_TOKEN = 'do-not-leak';
    cleanups.push(async () => void delete process.env.SWITCHBOARD_TEST_SECRET_TOKEN);
    const { manager, registry } = startedManager(home.root);
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], env: { EXTRA_SETTING: 'yes' } } }), { wait: true });
    const names = (await call(registry, 'mcp__fx__env')).text.split(' ');
    expect(names).toContain('EXTRA_SETTING');
    expect(names).toContain('PATH');
    expect(names).not.toContain('SWITCHBOARD_TEST_SECRET_TOKEN');
  });

  it('idle_timeout_seconds recycles the child; its tools stay registered; the next call starts it again', async () => {
    const home = tempHome();
    const { manager, registry } = startedManager(home.root);
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], lifecycle: { idle_timeout_seconds: 0.4 } } }), { wait: true });
    const first = Number((await call(registry, 'mcp__fx__pid')).text);
    await until(() => manager.list()[0]!.status === 'recycled', 'recycled');
    expect(manager.list()[0]!.reason).toMatch(/idle_timeout_seconds reached/);
    await until(() => !isAlive(first), 'the old child to exit');
    expect(registry.get('mcp__fx__pid')).toBeDefined();
    const second = Number((await call(registry, 'mcp__fx__pid')).text);
    expect(second).not.toBe(first);
    expect(manager.list()[0]!.status).toBe('ready');
  });

  it('max_lifetime_seconds (top level) recycles after the age', async () => {
    const home = tempHome();
    const { manager, registry } = startedManager(home.root);
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], max_lifetime_seconds: 1 } }), { wait: true });
    const first = Number((await call(registry, 'mcp__fx__pid')).text);
    await until(() => manager.list()[0]!.status === 'recycled', 'recycled');
    expect(manager.list()[0]!.reason).toMatch(/max_lifetime_seconds reached/);
    expect(Number((await call(registry, 'mcp__fx__pid')).text)).not.toBe(first);
  });

  it('keepalive notices a frozen server, marks it degraded and reconnects', async () => {
    const home = tempHome();
    const statuses: string[] = [];
    const { manager, registry } = startedManager(home.root, { retry: true, onStatusChanged: (s) => statuses.push(s.status) });
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], keepalive_interval: 1 } }), { wait: true });
    const first = Number((await call(registry, 'mcp__fx__pid')).text);
    process.kill(first, 'SIGSTOP');
    await until(() => statuses.includes('degraded'), 'degraded', 30_000);
    await until(() => manager.list()[0]!.status === 'ready', 'ready again', 30_000);
    expect(Number((await call(registry, 'mcp__fx__pid')).text)).not.toBe(first);
    await until(() => !isAlive(first), 'the frozen child to be killed');
  }, 60_000);
});

describe('elicitation', () => {
  const entry = (extra = {}) => servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], ...extra } });

  it('form requests go to the approval queue as a form; accepted values reach the server', async () => {
    const home = tempHome();
    const approvals = scriptedApprovals(() => ({ status: 'approved', values: { name: 'Ann' } }));
    const { manager, registry } = startedManager(home.root, { approvals: approvals.requester });
    await manager.start(entry(), { wait: true });
    expect((await call(registry, 'mcp__fx__ask')).text).toBe('elicitation accept {"name":"Ann"}');
    expect(approvals.asked[0]).toMatchObject({ tool: 'elicitation', server: 'fx', form: { message: 'Your name?', schema: { properties: { name: { type: 'string' } } } } });
  });

  it('modern era: the same handlers answer input_required results (defaults fill omitted fields)', async () => {
    const home = tempHome();
    const approvals = scriptedApprovals(() => ({ status: 'approved', values: {} }));
    const { manager, registry } = startedManager(home.root, { approvals: approvals.requester });
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio', '--legacy', 'reject'] } }), { wait: true });
    expect(manager.list()[0]!.era).toBe('modern');
    expect((await call(registry, 'mcp__fx__ask_modern')).text).toBe('elicitation accept {"name":"Nobody"}');
    expect(approvals.asked[0]).toMatchObject({ tool: 'elicitation', form: { message: 'Your name?' } });
  });

  it('denied -> decline; no answer within elicitation.timeout -> cancel; disabled -> not advertised', async () => {
    const home = tempHome();
    const deny = scriptedApprovals(() => ({ status: 'denied' }));
    const never = scriptedApprovals(() => new Promise(() => {}));
    const a = makeManager(home.root, { approvals: deny.requester });
    const b = makeManager(home.root, { approvals: never.requester });
    cleanups.push(() => a.manager.stop(), () => b.manager.stop());
    await a.manager.start(entry(), { wait: true });
    await b.manager.start(servers({
      fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], elicitation: { timeout: 0.3 } },
      off: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], elicitation: { enabled: false } },
    }), { wait: true });
    expect((await call(a.registry, 'mcp__fx__ask')).text).toBe('elicitation decline');
    expect((await call(b.registry, 'mcp__fx__ask')).text).toBe('elicitation cancel');
    const off = await call(b.registry, 'mcp__off__ask');
    expect(off.isError).toBe(true);
    expect(off.text).toMatch(/elicitation/i);
    expect(never.asked).toHaveLength(1);
  });
});

describe('reconnect backoff', () => {
  it('a server that keeps dying goes reconnecting -> failed after repeated failures, then is retried and recovers', async () => {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    const flag = path.join(home.root, 'healthy');
    // Exits at once until the flag file exists, then serves.
    const script = `if (!require('fs').existsSync(${JSON.stringify(flag)})) process.exit(1); process.argv.splice(1, Infinity, 'fixture', 'stdio'); import(${JSON.stringify(FIXTURE_SERVER)});`;
    const statuses: string[] = [];
    const { manager, registry } = startedManager(home.root, {
      retry: true,
      backoff: { minMs: 20, maxMs: 80, failuresBeforeFailed: 3, failedRetryMs: 300 },
      onStatusChanged: (s) => statuses.push(s.status),
    });
    await manager.start(servers({ flaky: { command: NODE, args: ['-e', script], connect_timeout: 5 } }), { wait: true });
    await until(() => manager.list()[0]!.status === 'failed', 'failed');
    expect(manager.list()[0]!.reason).toMatch(/^server flaky: .*retrying every/);
    expect(statuses.filter((s) => s === 'reconnecting').length).toBeGreaterThanOrEqual(2);
    fs.writeFileSync(flag, '');
    await until(() => manager.list()[0]!.status === 'ready', 'ready after the retry');
    expect((await call(registry, 'mcp__flaky__echo', { text: 'back' })).text).toBe('echo: back');
  });
});
