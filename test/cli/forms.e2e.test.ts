import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel, type ScriptStep } from '../fixtures/scripted-model.js';
import { cliPath, runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { screenOf } from '../helpers/screen.js';
import { EVERYTHING, FIXTURE_SERVER, NODE } from '../helpers/mcp.js';
import { waitUntil } from '../helpers/webhooks.js';

const running: RunningCli[] = [];
const killers: Array<() => void> = [];
let model: ScriptedModel | undefined;
afterEach(async () => {
  for (const kill of killers.splice(0)) kill();
  await stopClis(running);
  await model?.close();
  model = undefined;
});

/** A home with the scripted model and MCP servers that ask for input: the fixture (`fx`, one name), and server-everything (`ev`, every field type). */
async function formsHome(script: ScriptStep[], options: { headless: 'deny' | 'wait'; everything: boolean }) {
  model = await startScriptedModel(script);
  return preparedHome((config) => {
    config.model = { provider: 'openai-compatible', base_url: model!.url, name: 'm' };
    config.approvals = { headless: options.headless };
    config.mcp_servers = { fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'] }, ...(options.everything ? { ev: { command: NODE, args: [EVERYTHING, 'stdio'] } } : {}) };
  });
}

/** The tool results the model was sent back, as one text. */
function toolResults(): string {
  return model!.requests.flatMap((request) => request.body.messages as Array<{ role: string; content: unknown }>)
    .filter((message) => message.role === 'tool').map((message) => JSON.stringify(message.content)).join('\n');
}

describe('MCP forms (elicitation) from the CLI', () => {
  it('through a gateway: run names the command; approvals list shows the fields; a wrong answer exits 2 and sends nothing; the answer lets the run go on with the values', { timeout: 90_000 }, async () => {
    const home = await formsHome([
      { toolCalls: [{ name: 'mcp__ev__trigger_elicitation_request', args: {} }] }, { text: 'Thanks for the details.' },
      { toolCalls: [{ name: 'mcp__fx__ask', args: {} }] }, { text: 'Declined, fine.' },
    ], { headless: 'wait', everything: true });
    const gateway = startCli(['gateway', '--home', home.root]);
    running.push(gateway);
    await gateway.waitFor('Control channel listening', 30_000);
    await gateway.waitFor(/MCP server ev ready[\s\S]*MCP server fx ready|MCP server fx ready[\s\S]*MCP server ev ready/, 30_000);

    const run = startCli(['run', 'collect my details', '--home', home.root]);
    running.push(run);
    await run.waitFor(/\? ev asks for: Please provide inputs for the following fields; answer with switchboard approvals answer [0-9a-f]{8} --value name=\.\.\. \(or --decline\)\n/, 30_000);
    const id = /approvals answer ([0-9a-f]{8})/.exec(run.output())![1]!;

    const listed = await runCli(['approvals', 'list', '--home', home.root]);
    expect(listed.stdout).toContain('  form from ev: Please provide inputs for the following fields:\n  fields:\n');
    expect(listed.stdout).toMatch(/\n {4}name {2,}text, required · Your full, legal name\n/);
    expect(listed.stdout).toMatch(/\n {4}integer {2,}a whole number from 1 to 100, default 42 · Your favorite integer/);
    expect(listed.stdout).toMatch(/\n {4}titledSingleSelectEnum {2,}one of: hero-1 \(Superman\), hero-2 \(Green Lantern\), hero-3 \(Wonder Woman\), default hero-1/);
    expect(listed.stdout).toContain(`  answer: switchboard approvals answer ${id} --value name=... (or --decline)\n`);
    const [row] = JSON.parse((await runCli(['approvals', 'list', '--json', '--home', home.root])).stdout) as Array<{ form: { message: string }; fields: Array<Record<string, unknown>> }>;
    expect(row!.form.message).toBe('Please provide inputs for the following fields:');
    expect(row!.fields[0]).toEqual({ name: 'name', title: 'String', type: 'string', required: true, description: 'Your full, legal name', accepts: 'text' });
    expect(row!.fields.find((field) => field.name === 'untitledMultipleSelectEnum')).toMatchObject({ type: 'array', required: false, choices: ['Guitar', 'Piano', 'Violin', 'Drums', 'Bass'], default: ['Guitar'] });

    const wrong = await runCli(['approvals', 'answer', id, '--value', 'integer=500', '--value', 'colour=red', '--value', 'check=maybe', '--home', home.root]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe([
      `error: The answer does not fit the form of approval ${id} (ev asks for: Please provide inputs for the following fields)`,
      '  - integer: must be from 1 to 100 (got 500)',
      '  - colour: not a field of this form (its fields: name, check, firstLine, email, homepage, birthdate, integer, number, untitledSingleSelectEnum, untitledMultipleSelectEnum, titledSingleSelectEnum, titledMultipleSelectEnum, legacyTitledEnum)',
      '  - check: must be true or false (got "maybe")',
      '  - name: is required (text)',
      '  Nothing was sent. See its fields: switchboard approvals list',
      '',
    ].join('\n'));
    const approve = await runCli(['approvals', 'approve', id, '--home', home.root]);
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain(`Answer it with switchboard approvals answer ${id} --value field=...`);
    expect(JSON.parse((await runCli(['approvals', 'list', '--json', '--home', home.root])).stdout)).toHaveLength(1); // still waiting

    const answered = await runCli(['approvals', 'answer', id, '--value', 'name=Ada Lovelace', '--value', 'check=yes', '--value', 'integer=7',
      '--json', '{"titledMultipleSelectEnum": ["fish-1", "fish-3"], "integer": 1}', '--home', home.root]);
    expect(answered.stderr).toMatch(new RegExp(`^Sent the answer of ev \\(${id}[0-9a-f-]+\\)\\.\\n$`));
    expect(answered.code).toBe(0);
    const result = await run.exited;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Thanks for the details.\n');
    expect(result.stderr).toMatch(/ {2}< mcp__ev__trigger_elicitation_request ok \(\d+ ms\): ✅ User provided the requested information! User inputs: - Name: Ada Lovelace - Agreed to terms: true - Favorite Integer: 7/);
    // Typed values reach the server as their types; the fields left out take the server's defaults.
    for (const part of ['\\"name\\": \\"Ada Lovelace\\"', '\\"check\\": true', '\\"integer\\": 7', '\\"firstLine\\": \\"It was a dark and stormy night.\\"']) expect(toolResults()).toContain(part);
    expect(toolResults()).toMatch(/titledMultipleSelectEnum\\": \[\\n\s+\\"fish-1\\",\\n\s+\\"fish-3\\"/);
    const decided = await runCli(['approvals', 'answer', id, '--decline', '--home', home.root]);
    expect(decided.code).toBe(1);
    expect(decided.stderr).toContain('(form from ev) is already answered (by cli)');

    const second = startCli(['run', 'ask me', '--home', home.root]);
    running.push(second);
    await second.waitFor(/\? fx asks for: Your name\?; answer with switchboard approvals answer ([0-9a-f]{8}) --value name=\.\.\./, 30_000);
    const declined = await runCli(['approvals', 'answer', /answer ([0-9a-f]{8})/.exec(second.output())![1]!, '--decline', '--home', home.root]);
    expect(declined.stderr).toMatch(/^Declined the form of fx/);
    expect((await second.exited).stdout).toBe('Declined, fine.\n');
    expect(toolResults()).toContain('elicitation decline');
  });

  it('a local run at a terminal asks each field there (answers pasted at once answer in order); without a terminal approvals.headless "deny" declines and says so', { timeout: 60_000 }, async () => {
    const home = await formsHome([{ toolCalls: [{ name: 'mcp__fx__ask', args: {} }] }, { text: 'Hello, Ada.' }, { toolCalls: [{ name: 'mcp__fx__ask', args: {} }] }, { text: 'No name then.' }], { headless: 'deny', everything: false });
    // `script` gives the run a pseudo-terminal, as a terminal window would.
    const terminal = spawn('script', ['-qec', `${NODE} ${cliPath} run 'ask me' --home ${home.root}`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    killers.push(() => terminal.kill('SIGKILL'));
    let output = '';
    terminal.stdout.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => terminal.on('close', resolve));
    await waitUntil(() => output.includes('answer (1 field, 1 required)? [y/N] '), 30_000, 'the form at the terminal');
    expect(output).toContain('  ? fx asks for: Your name?\r\n');
    // Both answers pasted at once: each line answers the next question, as a shell takes them.
    terminal.stdin.write('y\rAda\r');
    expect(await exited).toBe(0);
    expect(screenOf(output)).toContain('    name (text, required): Ada');
    expect(output).toContain('Hello, Ada.');
    expect(toolResults()).toContain('elicitation accept {\\"name\\":\\"Ada\\"}');

    const headless = await runCli(['run', 'ask me', '--home', home.root]);
    expect(headless.stderr).toContain('  ! fx asks for: Your name?; declined: approvals.headless is "deny" (set it to "wait" to answer from another terminal or a console)\n');
    expect(headless.stdout).toBe('No name then.\n');
    expect(toolResults()).toContain('elicitation decline');
  });
});
