import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { FIXTURE_SERVER, NODE } from '../helpers/mcp.js';
import { preparedHome, startHost } from '../helpers/host.js';
import { OperatorError } from '../../source/operations/errors.js';

let model: ScriptedModel | undefined;
afterEach(async () => { await model?.close(); model = undefined; });

describe('runs through operations', () => {
  it('no run starts before the MCP servers\' first connection round has settled: the first run sees a slow server\'s tools', async () => {
    model = await startScriptedModel([{ text: 'ok' }]);
    const home = preparedHome();
    // A stdio server that takes 1.5 s before it answers anything.
    const slow = path.join(path.dirname(home.root), 'slow-server.mjs');
    fs.writeFileSync(slow, `setTimeout(() => import(${JSON.stringify(pathToFileURL(FIXTURE_SERVER).href)}), 1500);\n`);
    fs.writeFileSync(home.configFile, JSON.stringify({
      ...JSON.parse(fs.readFileSync(home.configFile, 'utf8')),
      model: { provider: 'openai-compatible', base_url: model.url, name: 'm' },
      mcp_servers: { slow: { command: NODE, args: [slow, 'stdio'] } },
    }));
    const host = await startHost(home);
    const started = Date.now();
    const result = await host.operations.runs.run({ prompt: 'hello', origin: 'cli' });
    expect(result.status).toBe('ok');
    expect(Date.now() - started).toBeGreaterThan(1000);
    expect(JSON.stringify(model.requests[0]!.body.tools)).toContain('mcp__slow__echo');
  });

  it('checks params and names what is wrong; an unknown run cannot be cancelled', async () => {
    const host = await startHost(preparedHome());
    const failure = (work: Promise<unknown>) => work.then(() => undefined, (error: unknown) => error as OperatorError);
    expect(await failure(host.operations.runs.run({ prompt: '' }))).toMatchObject({ code: 'invalid', message: 'runs.run: "prompt" must be a non-empty string' });
    expect(await failure(host.operations.runs.cancel({ runId: 'nope' }))).toMatchObject({ code: 'not_found' });
    expect(await failure(host.operations.jobs.pause({ job: 'nope' }))).toMatchObject({ code: 'not_found', message: expect.stringContaining('no job with id or name "nope"') });
  });
});
