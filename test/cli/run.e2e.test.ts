import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { runCli, startCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

let model: ScriptedModel | undefined;
afterEach(async () => { await model?.close(); model = undefined; });

describe('switchboard run', () => {
  it('answers in dry-run on a fresh home and stores the run (--json prints the record)', async () => {
    const home = tempHome();
    const plain = await runCli(['run', 'Say hi', '--home', home.root]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^\[dry-run\] No model was called/);
    expect(plain.stdout).toContain('## User prompt\n\nSay hi');
    const json = await runCli(['run', 'Again', '--json', '--home', home.root]);
    const record = JSON.parse(json.stdout);
    expect(record).toMatchObject({ origin: 'cli', status: 'ok', prompt: 'Again', provider: 'dry-run', toolCalls: [] });
  });

  it('says on stderr which --skill is missing or unreadable, and runs with the skills found', async () => {
    const home = tempHome();
    fs.mkdirSync(`${home.root}/skills/tone`, { recursive: true });
    fs.writeFileSync(`${home.root}/skills/tone/SKILL.md`, '---\nname: tone\ndescription: Be brief\n---\nAnswer in one line.');
    fs.mkdirSync(`${home.root}/skills/empty`, { recursive: true });
    const ran = await runCli(['run', 'Say hi', '--skill', 'tone', '--skill', 'nosuch', '--skill', 'empty', '--home', home.root]);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain(`  ! skill "nosuch" not found (${home.root}/skills/nosuch/SKILL.md); the run goes on without it`);
    expect(ran.stderr).toContain(`  ! skill "empty" not found (${home.root}/skills/empty/SKILL.md); the run goes on without it`);
    expect(ran.stderr).not.toContain('skill "tone"');
    expect(ran.stdout).toContain('Answer in one line.');
  });

  it('shows tool calls on stderr as they happen and the answer on stdout', async () => {
    model = await startScriptedModel([{ toolCalls: [{ name: 'terminal', args: { command: 'echo 42' } }] }, { text: 'The answer is 42.' }]);
    const home = tempHome();
    await runCli(['config', 'set', 'model', JSON.stringify({ provider: 'openai-compatible', base_url: model.url, name: 'm' }), '--home', home.root]);
    const result = await runCli(['run', 'What is 6*7?', '--home', home.root]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The answer is 42.\n');
    expect(result.stderr).toContain('  > terminal {"command":"echo 42"}');
    expect(result.stderr).toMatch(/ {2}< terminal ok \(\d+ ms\): exit code 0 42/);
  });

  it('a call of a tool that does not exist shows its call line, then that it was not run', async () => {
    model = await startScriptedModel([{ toolCalls: [{ name: 'nosuch', args: { x: 1 } }] }, { text: 'Sorry.' }]);
    const home = tempHome();
    await runCli(['config', 'set', 'model', JSON.stringify({ provider: 'openai-compatible', base_url: model.url, name: 'm' }), '--home', home.root]);
    const result = await runCli(['run', 'call something', '--home', home.root]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^ {2}> nosuch \{"x":1\}\n {2}< nosuch not run: Model tried to call unavailable tool 'nosuch'\. Available tools: .*terminal/);
  });

  it('says why a dangerous call was refused headless, and exits 1 on a failed run', async () => {
    model = await startScriptedModel([{ toolCalls: [{ name: 'terminal', args: { command: 'sudo reboot' } }] }, { status: 400, message: 'context length exceeded' }]);
    const home = tempHome();
    await runCli(['config', 'set', 'model', JSON.stringify({ provider: 'openai-compatible', base_url: model.url, name: 'm' }), '--home', home.root]);
    await runCli(['config', 'set', 'approvals.headless', 'deny', '--home', home.root]);
    const result = await runCli(['run', 'reboot it', '--home', home.root]);
    expect(result.stderr).toContain('! terminal needs approval (matches: privilege escalation, system power or process control); denied: approvals.headless is "deny"');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Run failed: openai-compatible answered HTTP 400: context length exceeded/);
  });

  it('a run cancelled with Ctrl-C says so once', async () => {
    model = await startScriptedModel([{ toolCalls: [{ name: 'terminal', args: { command: 'echo 1' } }] }, { text: 'too late', delayMs: 20_000 }]);
    const home = tempHome();
    await runCli(['config', 'set', 'model', JSON.stringify({ provider: 'openai-compatible', base_url: model.url, name: 'm' }), '--home', home.root]);
    const running = startCli(['run', 'count', '--home', home.root]);
    await running.waitFor('< terminal ok');
    running.child.kill('SIGINT');
    const result = await running.exited;
    expect(result.stderr).toMatch(/Run cancelled \(run [0-9a-f-]{36}\)\.\n/);
    expect(result.stderr).not.toContain('the run was cancelled');
    expect(result.code).toBe(1);
  });

  it('refuses to start with a provider that needs a key it does not have, naming the key', async () => {
    const home = tempHome();
    const refused = await runCli(['config', 'set', 'model', '{"provider":"openai","name":"gpt-4.1-mini"}', '--home', home.root]);
    expect(refused.code).toBe(1); // the same check as at start
    expect(refused.stderr).toContain('model.api_key is required for provider "openai"');
    const config = JSON.parse(fs.readFileSync(home.configFile, 'utf8'));
    fs.writeFileSync(home.configFile, JSON.stringify({ ...config, model: { provider: 'openai', name: 'gpt-4.1-mini' } }));
    for (const args of [['run', 'x'], ['gateway']]) {
      const result = await runCli([...args, '--home', home.root]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('- model: model.api_key is required for provider "openai"');
      expect(result.stderr).toContain('switchboard config set model.api_key');
    }
  });
});
