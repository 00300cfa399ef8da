import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

const children: RunningCli[] = [];
afterEach(async () => {
  for (const running of children.splice(0)) {
    if (running.child.exitCode === null) running.child.kill('SIGKILL');
    await running.exited;
  }
});

const listening = /Webhook listener on (http:\/\/127\.0\.0\.1:(\d+)) - routes: (.+)/;

/** A home whose config exists and listens on an ephemeral port. */
async function preparedHome() {
  const home = tempHome();
  const set = await runCli(['config', 'set', 'platforms.webhook.extra.port', '0', '--home', home.root]);
  expect(set.code).toBe(0);
  return home;
}

describe('switchboard CLI', () => {
  it('prints help and version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: switchboard');
    expect(help.stdout).toMatch(/gateway\s+Run the gateway headless/);
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toBe(JSON.parse(fs.readFileSync('package.json', 'utf8')).version);
    // `help <command> <subcommand>` is that subcommand's help; `help` of an unknown name says so.
    const sub = await runCli(['help', 'cron', 'create']);
    expect([sub.code, sub.stdout.split('\n')[0]]).toEqual([0, 'Usage: switchboard cron create [options] <schedule> <prompt>']);
    const unknown = await runCli(['help', 'crn']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("error: unknown command 'crn'\n(Did you mean cron?)\n");
  });

  it('stops quietly when its reader has closed the pipe (| head, | true)', () => {
    const errors = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-pipe-')), 'stderr.txt');
    // `true` exits at once, long before the CLI has started: its first write meets a closed pipe (EPIPE).
    execFileSync('/bin/sh', ['-c', `"${process.execPath}" "${cliPath}" --help 2>"${errors}" | true`]);
    expect(fs.readFileSync(errors, 'utf8')).toBe('');
  });

  it('suggests the closest command for an unknown one and exits non-zero', async () => {
    const result = await runCli(['gatewya']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("unknown command 'gatewya'");
    expect(result.stderr).toContain('Did you mean gateway?');
  });

  it('creates a working default config on first run and tells where and how to see the demo route', async () => {
    const home = tempHome();
    const show = await runCli(['config', 'show', '--home', home.root]);
    expect(show.code).toBe(0);
    expect(show.stderr).toContain(`First run: created ${home.configFile}`);
    expect(show.stderr).toContain('http://127.0.0.1:8644/webhooks/demo');
    expect(show.stderr).toContain('switchboard config get platforms.webhook.extra.routes.demo.secret');
    expect(fs.statSync(home.configFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(home.root).mode & 0o777).toBe(0o700);

    const shown = JSON.parse(show.stdout);
    expect(shown.model).toEqual({ provider: 'dry-run' });
    expect(shown.mcp_servers).toEqual({});
    expect(shown.timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(shown.platforms.webhook).toMatchObject({ enabled: true, extra: { host: '127.0.0.1', port: 8644 } });
    expect(shown.platforms.webhook.extra.routes.demo.secret).toBe('********');

    const secret = await runCli(['config', 'get', 'platforms.webhook.extra.routes.demo.secret', '--home', home.root]);
    expect(secret.stdout.trim()).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
    expect(Buffer.from(secret.stdout.trim(), 'base64url')).toHaveLength(32);
    expect(show.stdout).not.toContain(secret.stdout.trim());
    // Second run: no first-run message, same secret.
    const again = await runCli(['config', 'get', 'platforms.webhook.extra.routes.demo.secret', '--home', home.root]);
    expect(again.stderr).toBe('');
    expect(again.stdout).toBe(secret.stdout);
  });

  it('honours $SWITCHBOARD_HOME and prints the config path', async () => {
    const home = tempHome();
    const result = await runCli(['config', 'path'], { env: { SWITCHBOARD_HOME: home.root } });
    expect(result.stdout.trim()).toBe(home.configFile);
  });

  it('sets, gets and unsets values, refusing invalid changes without writing', async () => {
    const home = await preparedHome();
    const before = fs.readFileSync(home.configFile, 'utf8');
    const bad = await runCli(['config', 'set', 'platforms.webhook.extra.prot', '9000', '--home', home.root]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('platforms.webhook.extra.prot: unknown key; did you mean "port"?');
    expect(fs.readFileSync(home.configFile, 'utf8')).toBe(before);

    expect((await runCli(['config', 'set', 'timezone', 'Europe/Paris', '--home', home.root])).code).toBe(0);
    expect((await runCli(['config', 'get', 'timezone', '--home', home.root])).stdout).toBe('Europe/Paris\n');
    // With no gateway running, the log says the change waits for one (not that something needs a restart).
    expect(fs.readFileSync(path.join(home.root, 'logs', 'gateway.log'), 'utf8')).toContain('config.json changed (timezone) while no gateway runs: applied when one starts');
    const setKey = await runCli(['config', 'set', 'model', '{"provider":"openai","api_key":"sk-very-secret"}', '--home', home.root]);
    expect(setKey.stderr).not.toContain('sk-very-secret');
    expect((await runCli(['config', 'show', '--home', home.root])).stdout).not.toContain('sk-very-secret');
    expect((await runCli(['config', 'unset', 'timezone', '--home', home.root])).code).toBe(0);
    const missing = await runCli(['config', 'get', 'timezone', '--home', home.root]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('timezone is not set in config.json, so its default applies\n  IANA time zone for schedules and displayed times. Default: the system zone.');
    // A misspelt key is named as unknown, with the schema's suggestion; a missing route as missing.
    const misspelt = await runCli(['config', 'get', 'platforms.webhook.extra.prot', '--home', home.root]);
    expect(misspelt.code).toBe(1);
    expect(misspelt.stderr).toContain('error: platforms.webhook.extra.prot: unknown key; did you mean "port"?');
    expect((await runCli(['config', 'get', 'platforms.webhook.extra.routes.nosuch.secret', '--home', home.root])).stderr)
      .toContain('error: platforms.webhook.extra.routes.nosuch is not in config.json');
  });

  it('changes config through the running gateway: applied at once, or it says which keys need a restart', async () => {
    const home = await preparedHome();
    const gateway = startCli(['gateway', '--home', home.root]);
    try {
      await gateway.waitFor('Control channel listening');
      const route = await runCli(['config', 'set', 'platforms.webhook.extra.routes.demo.description', 'edited', '--home', home.root]);
      expect(route.code).toBe(0);
      expect(route.stderr).toMatch(/The running gateway \(pid \d+\) applied it\./);
      const zone = await runCli(['config', 'set', 'timezone', 'Europe/Paris', '--home', home.root]);
      expect(zone.stderr).toMatch(/The running gateway \(pid \d+\) needs a restart to apply timezone\./);
      // The same check as at start: a change the next start would refuse is never written.
      const refused = await runCli(['config', 'set', 'platforms.webhook.extra.routes.demo.deliver', 'slack', '--home', home.root]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('- platforms.webhook.extra.routes.demo.deliver: platforms.slack is not enabled');
      expect(JSON.parse(fs.readFileSync(home.configFile, 'utf8')).platforms.webhook.extra.routes.demo.deliver).toBe('log');
    } finally {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
  });

  it('lists every validation problem of a hand-edited file and exits non-zero', async () => {
    const home = await preparedHome();
    const config = JSON.parse(fs.readFileSync(home.configFile, 'utf8'));
    config.platforms.webhook.extra.port = 'eighty';
    config.mcp_servers = { gh: { url: 'https://x', timout: 5 } };
    config.model.provider = 'gpt';
    fs.writeFileSync(home.configFile, JSON.stringify(config));
    for (const args of [['config', 'validate'], ['gateway']]) {
      const result = await runCli([...args, '--home', home.root]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${home.configFile} has 3 problems`);
      expect(result.stderr).toContain('- mcp_servers.gh.timout: unknown key; did you mean "timeout"?');
      expect(result.stderr).toContain('- model.provider: must be one of');
      expect(result.stderr).toContain('- platforms.webhook.extra.port: must be an integer (got string)');
    }
    fs.writeFileSync(home.configFile, '{ "timezone": ');
    const broken = await runCli(['config', 'validate', '--home', home.root]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${home.configFile} is not valid JSON`);
    // JSON.parse quotes the text around an error; an unquoted secret must not reach the message.
    fs.writeFileSync(home.configFile, '{ "model": { "api_key": sk-live-0123456789abcdef } }');
    const leaky = await runCli(['config', 'validate', '--home', home.root]);
    expect(leaky.stderr).toContain(`${home.configFile} is not valid JSON: Unexpected token`);
    expect(leaky.stderr).not.toContain('sk-live');
  });

  it('runs the headless gateway: startup line, /health, status from another process, SIGTERM shutdown', async () => {
    const home = await preparedHome();
    const gateway = startCli(['gateway', '--home', home.root]);
    children.push(gateway);
    const [, url, , routes] = listening.exec(await gateway.waitFor(listening))!;
    expect(routes!.trim()).toBe('demo');
    const health = await fetch(`${url}/health`);
    expect(await health.json()).toMatchObject({ status: 'ok', platform: 'webhook', store: { fault: null } });

    const status = await runCli(['status', '--json', '--home', home.root]);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid: gateway.child.pid, webhookUrl: url });

    // config.json broken under the running gateway: it keeps its config, and status warns before a restart fails.
    const good = fs.readFileSync(home.configFile, 'utf8');
    fs.writeFileSync(home.configFile, good.replace('"timezone"', '"timezon"'));
    const warned = await runCli(['status', '--home', home.root]);
    expect(warned.stdout).toMatch(/ {2}config {4}\S+config\.json has 1 problem\(s\) the next start would refuse .*: timezon: unknown key; did you mean "timezone"\?; see switchboard config validate/);
    expect(JSON.parse((await runCli(['status', '--json', '--home', home.root])).stdout).configProblems).toEqual(['timezon: unknown key; did you mean "timezone"?']);
    fs.writeFileSync(home.configFile, good);
    expect((await runCli(['status', '--home', home.root])).stdout).not.toContain('  config ');

    const second = await runCli(['gateway', '--home', home.root]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Another gateway is already running on this home (pid ${gateway.child.pid}`);

    gateway.child.kill('SIGTERM');
    const result = await gateway.exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Gateway stopping: SIGTERM received');
    // The last line says it is done (the stop closed the listener, the runs and the store).
    expect(result.stderr.trim().split('\n').at(-1)).toContain('Gateway stopped: SIGTERM received');
    expect(result.stdout).toBe('');
    expect(JSON.parse((await runCli(['status', '--json', '--home', home.root])).stdout).running).toBe(false);
    const log = fs.readFileSync(home.gatewayLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(log.map((entry) => entry.msg)).toContain(`Webhook listener on ${url} - routes: demo`);
    expect(fs.readFileSync(home.gatewayLog, 'utf8')).not.toContain(
      (await runCli(['config', 'get', 'platforms.webhook.extra.routes.demo.secret', '--home', home.root])).stdout.trim(),
    );
  });

  it('with no command on an empty home creates the default config and serves /health on 8644 (npm start)', async () => {
    // The one test that uses the default port: it proves what `npm start` does on a fresh machine.
    const home = tempHome();
    const gateway = startCli(['--home', home.root]);
    children.push(gateway);
    const output = await gateway.waitFor(/Webhook listener on|error:/);
    expect(output).toContain(`First run: created ${home.configFile}`);
    expect(output).toContain('running the headless gateway');
    expect(output, 'port 8644 must be free for this test').toContain('Webhook listener on http://127.0.0.1:8644 - routes: demo');
    const health = await fetch('http://127.0.0.1:8644/health');
    expect(await health.json()).toMatchObject({ status: 'ok', platform: 'webhook', store: { fault: null } });
    gateway.child.kill('SIGINT');
    expect((await gateway.exited).code).toBe(0);
  });

  it('fails with a clear error naming the address and the config key when the port is taken', async () => {
    const home = await preparedHome();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    await runCli(['config', 'set', 'platforms.webhook.extra.port', String(port), '--home', home.root]);
    const result = await runCli(['gateway', '--home', home.root]);
    blocker.close();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: Webhook listener cannot start: 127.0.0.1:${port} is already in use`);
    expect(result.stderr).toContain('change platforms.webhook.extra.port in');
  });
});

describe('delivery targets at startup', () => {
  it('refuses to start a gateway whose route targets a disabled platform, naming the route key', async () => {
    const home = await preparedHome();
    const config = JSON.parse(fs.readFileSync(home.configFile, 'utf8'));
    config.platforms.webhook.extra.routes.demo.deliver = 'slack'; // written by hand: config set refuses it
    fs.writeFileSync(home.configFile, JSON.stringify(config));
    for (const args of [['gateway'], ['config', 'validate']]) {
      const result = await runCli([...args, '--home', home.root]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('- platforms.webhook.extra.routes.demo.deliver: platforms.slack is not enabled: set platforms.slack.enabled to true and its credentials (bot_token)');
    }
  });
});
