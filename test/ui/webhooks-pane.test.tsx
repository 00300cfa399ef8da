import { afterEach, describe, expect, it } from 'vitest';
import { renderConsole, typeText } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { githubExample, githubHeaders, SECRET } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

async function webhookConsole() {
  const view = await renderConsole({
    edit: (config) => { config.platforms!.webhook!.enabled = true; config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Issue: {issue.title}' } }; },
  });
  closers.push(view.close);
  const app = view.gateway.webhookApp!;
  const post = (event: string, payload: unknown, deliveryId: string, secret = SECRET) => {
    const body = JSON.stringify(payload);
    return app.inject({ method: 'POST', url: '/webhooks/gh', headers: githubHeaders(secret, body, event, deliveryId), payload: body });
  };
  view.stdin.write('2');
  await waitForFrame(view.lastFrame, (frame) => frame.includes('route gh'));
  return { ...view, post };
}

/** The Webhooks pane of a frame: what is above the Logs pane stacked under it. */
const pane = (frame: string) => frame.split('── Logs')[0]!;

const press = async (stdin: { write(data: string): void }, key: string) => {
  stdin.write(key);
  await new Promise((resolve) => setImmediate(resolve));
};

describe('Webhook deliveries pane (2)', () => {
  it('lists every request with its outcome, then the run state and delivery result', async () => {
    const { lastFrame, post } = await webhookConsole();
    expect((await post('issues', githubExample('issues', 'opened'), 'd-accepted')).statusCode).toBe(202);
    expect((await post('issues', githubExample('issues', 'opened'), 'd-bad-sig', 'wrong-secret-0000')).statusCode).toBe(401);
    expect((await post('ping', { zen: 'hi' }, 'd-ping')).statusCode).toBe(200);
    expect((await post('issues', githubExample('issues', 'opened'), 'd-accepted')).statusCode).toBe(200);
    const frame = await waitForFrame(lastFrame, (f) => /d-accepted\s+accepted\s+delivered/.test(f) && f.includes('duplicate'), 15_000);
    expect(frame).toMatch(/gh\s+issues\s+d-bad-sig\s+401/);
    expect(frame).toMatch(/gh\s+ping\s+d-ping\s+ignored/);
    expect(frame).toMatch(/d-accepted\s+duplicate/);
    // Newest first: the duplicate is above the accepted request.
    expect(frame.indexOf('duplicate')).toBeLessThan(frame.indexOf('delivered'));
  });

  it('F filters the rows as typed (words, field:value, !word), keeps the filter across panes, and Esc clears it', async () => {
    const { lastFrame, stdin, post } = await webhookConsole();
    expect((await post('issues', githubExample('issues', 'opened'), 'd-good')).statusCode).toBe(202);
    expect((await post('issues', githubExample('issues', 'opened'), 'd-forged', 'wrong-secret-0000')).statusCode).toBe(401);
    expect((await post('ping', { zen: 'hi' }, 'd-ping')).statusCode).toBe(200);
    await waitForFrame(lastFrame, (f) => f.includes('d-good') && f.includes('d-forged') && f.includes('d-ping'), 15_000);
    await press(stdin, 'F');
    await waitForFrame(lastFrame, (f) => f.includes('filter Webhooks'));
    await typeText(stdin, lastFrame, 'outcome:401');
    // Applied while typed: only the refused request is left.
    const refused = await waitForFrame(lastFrame, (f) => pane(f).includes('d-forged') && !pane(f).includes('d-good') && !pane(f).includes('d-ping'));
    expect(refused).toContain('filter "outcome:401" (1 of 4; Esc clears)');
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (f) => !f.includes('filter Webhooks'));
    // Another pane and back: the filter stays with its pane.
    await press(stdin, '5');
    await waitForFrame(lastFrame, (f) => f.includes('Logs, newest first'));
    await press(stdin, '2');
    await waitForFrame(lastFrame, (f) => f.includes('filter "outcome:401"') && !pane(f).includes('d-good'));
    // Negation and words together; an unknown field says which there are.
    await press(stdin, 'F');
    await waitForFrame(lastFrame, (f) => f.includes('filter Webhooks'));
    stdin.write('\u0015'); // Ctrl-U
    await typeText(stdin, lastFrame, '!ignored d-');
    await waitForFrame(lastFrame, (f) => pane(f).includes('d-good') && pane(f).includes('d-forged') && !pane(f).includes('d-ping') && !pane(f).includes('route gh'));
    stdin.write('\u0015');
    await typeText(stdin, lastFrame, 'colour:red');
    await waitForFrame(lastFrame, (f) => f.includes('no field "colour" (fields here: route: event: id: outcome: run: node:)'));
    // Esc on the filter line leaves the filter as it was before it opened.
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => f.includes('filter "outcome:401"') && pane(f).includes('d-forged') && !pane(f).includes('d-good'));
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => pane(f).includes('d-good') && pane(f).includes('d-ping') && !f.includes('filter "'));
  });

  it('opens a delivery with its rendered prompt, output and delivery result; r replays it; c copies its id', async () => {
    const { lastFrame, stdin, post, copied } = await webhookConsole();
    await post('issues', githubExample('issues', 'opened'), 'd-open');
    await waitForFrame(lastFrame, (f) => /d-open\s+accepted\s+delivered/.test(f), 15_000);
    // Rows: route gh, then the delivery.
    await press(stdin, keys.down);
    await press(stdin, 'c');
    await expect.poll(() => copied).toEqual(['d-open']);
    stdin.write(keys.enter);
    const details = await waitForFrame(lastFrame, (f) => f.includes('Prompt:'));
    expect(details).toContain(`Issue: ${(githubExample('issues', 'opened').issue as { title: string }).title}`);
    expect(details).toContain('Output:');
    expect(details).toContain('[dry-run]');
    // The whole record is there: the dry-run answer is long, and the delivery result is at its end (G).
    expect(details).toMatch(/lines 1-\d+\/\d+/);
    await press(stdin, 'G');
    const end = await waitForFrame(lastFrame, (f) => /Delivery to log: delivered/.test(f));
    expect(end).not.toContain('Prompt:');
    await press(stdin, 'g');
    await waitForFrame(lastFrame, (f) => f.includes('Prompt:'));
    await press(stdin, 'r');
    await waitForFrame(lastFrame, (f) => f.includes('Replay queued as d-open.replay-1.'));
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => /d-open\.replay-1\s+replay\s+delivered/.test(f), 15_000);
  });

  it('c on a request refused before it had an id says there is nothing to copy', async () => {
    const { lastFrame, stdin, copied, gateway } = await webhookConsole();
    expect((await gateway.webhookApp!.inject({ method: 'POST', url: '/webhooks/nope', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode).toBe(404);
    await waitForFrame(lastFrame, (f) => /nope\s.*404/.test(f));
    await press(stdin, keys.down);
    await press(stdin, 'c');
    await waitForFrame(lastFrame, (f) => f.includes('This request carried no delivery id: nothing to copy.'));
    expect(copied).toEqual([]);
  });

  it('t sends a signed test webhook with an editable payload through the intake; a bad payload is refused in place', async () => {
    const { lastFrame, stdin } = await webhookConsole();
    await press(stdin, 't');
    const input = await waitForFrame(lastFrame, (f) => f.includes('body  › {"test": true'));
    expect(input).toContain('Test delivery from the switchboard console');
    stdin.write(keys.enter);
    const sent = await waitForFrame(lastFrame, (f) => f.includes('Test to gh: HTTP 202 accepted'));
    const id = /delivery (test-[0-9a-f-]+)\)/.exec(sent)![1]!;
    await waitForFrame(lastFrame, (f) => /test\s+test-\S+\s+accepted/.test(f) && f.includes(id.slice(0, 12)));
    // Keys typed in the payload input do not reach the console (q would quit, 1 would switch panes).
    await press(stdin, 't');
    await waitForFrame(lastFrame, (f) => f.includes('body  › {"test"'));
    await typeText(stdin, lastFrame, ' q1');
    stdin.write(keys.enter);
    const refused = await waitForFrame(lastFrame, (f) => f.includes('Not sent: invalid JSON'));
    expect(refused).toContain('route gh');
    expect(refused).toContain('console"} q1');
  });

  it('c on a route copies its URL, or its secret only after a confirm (never shown)', async () => {
    const { lastFrame, stdin, copied, gateway } = await webhookConsole();
    await press(stdin, 'c');
    await waitForFrame(lastFrame, (f) => f.includes('Copy from route gh: u the URL · s the secret'));
    await press(stdin, 'u');
    await expect.poll(() => copied).toEqual([`${gateway.snapshot().webhook.url}/webhooks/gh`]);
    await press(stdin, 'c');
    await waitForFrame(lastFrame, (f) => f.includes('Copy from route gh'));
    await press(stdin, 's');
    await waitForFrame(lastFrame, (f) => f.includes('Copy the secret of route gh? y'));
    await press(stdin, 'n');
    await waitForFrame(lastFrame, (f) => f.includes('Secret not copied.'));
    expect(copied).toHaveLength(1);
    await press(stdin, 'c');
    await waitForFrame(lastFrame, (f) => f.includes('Copy from route gh'));
    await press(stdin, 's');
    await waitForFrame(lastFrame, (f) => f.includes('Copy the secret'));
    await press(stdin, 'y');
    await expect.poll(() => copied).toEqual([expect.stringContaining('/webhooks/gh'), SECRET]);
    const frame = await waitForFrame(lastFrame, (f) => f.includes('Copied the secret of route gh'));
    expect(frame).not.toContain(SECRET);
  });
});
