import { startScriptedModel } from '../test/fixtures/scripted-model.js';
import { generateText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
const model = await startScriptedModel([{ text: 'ok' }], { repeatLast: true });
const lm = createOpenAICompatible({ name: 'x', baseURL: model.url, apiKey: 'k' }).chatModel('m');
const N = 1500;
async function sdk() { await generateText({ model: lm, system: 'sys', messages: [{ role: 'user', content: 'hi' }], maxRetries: 2 }); }
async function direct() { await (lm as any).doGenerate({ prompt: [{ role: 'system', content: 'sys' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }] }); }
async function fetchOnly() { const r = await fetch(model.url + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }] }) }); await r.json(); }
for (const [name, fn] of [['sdk', sdk], ['direct', direct], ['fetch', fetchOnly], ['sdk', sdk], ['direct', direct], ['fetch', fetchOnly]] as const) {
  for (let i = 0; i < 200; i++) await fn();
  const c = process.cpuUsage(); const t = performance.now();
  for (let i = 0; i < N; i += 4) await Promise.all([fn(), fn(), fn(), fn()]);
  const wall = performance.now() - t; const cpu = process.cpuUsage(c);
  console.log(name, 'wall µs/call', (wall * 1000 / N).toFixed(0), 'cpu µs/call (incl. server)', ((cpu.user + cpu.system) / N).toFixed(0));
}
await model.close();
