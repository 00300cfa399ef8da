import { describe, expect, it } from 'vitest';
import { consoleEventView, createReadModel, type GatewayEvent, type GatewayState } from '../../source/operations/state.js';

const empty: GatewayState = {
  gateway: { pid: 1, approvalsPending: 0, jobs: { jobs: 1, enabled: 1, running: [], nextRunAtMs: null } } as unknown as GatewayState['gateway'],
  approvals: [], approvalHistory: [], grants: [], mcpServers: [], jobs: [], webhooks: [], outputs: [], logs: [], runsInFlight: [], failedDeliveries: 0,
};

const run = (runId: string, origin: string, status = 'ok') => ({
  runId, origin, status, output: `the long answer of ${runId}`, steps: 1, error: status === 'ok' ? undefined : 'failed',
  toolCalls: [{ name: 'shell', args: {}, result: 'a big tool result' }], usage: { inputTokens: 1, outputTokens: 1 }, startedAtMs: 1, finishedAtMs: 2,
});

// One webhook's events as a headless gateway emits them, a console run, and events the read model does not fold.
const events = [
  { type: 'webhook.received', data: { route: 'r', event: 'push', deliveryId: 'd1', outcome: 'accepted', status: 202, latencyMs: 1, atMs: 1 } },
  { type: 'webhook.runStarted', data: { seq: 1, route: 'r', event: 'push', deliveryId: 'd1', origin: 'webhook:r:d1', replayOf: null, atMs: 2 } },
  { type: 'run.started', data: { runId: 'w1', origin: 'webhook:r:d1', prompt: 'a long prompt', atMs: 2 } },
  { type: 'run.progressed', data: { runId: 'w1', origin: 'webhook:r:d1', event: { kind: 'text', text: 'step' } } },
  { type: 'run.finished', data: run('w1', 'webhook:r:d1') },
  { type: 'log.line', data: { atMs: 3, level: 'info', message: 'Delivered to log' } },
  { type: 'delivery.finished', data: { target: 'log', subject: { kind: 'webhook' }, result: { ok: false, reason: 'down' } } },
  { type: 'webhook.completed', data: { seq: 1, route: 'r', event: 'push', deliveryId: 'd1', state: 'failed', runId: 'w1', runStatus: 'ok', delivery: { ok: false, reason: 'down' }, atMs: 4 } },
  { type: 'run.started', data: { runId: 'c1', origin: 'console', prompt: 'mine', atMs: 5 } },
  { type: 'run.started', data: { runId: 'w2', origin: 'job:nightly', prompt: 'still running', atMs: 5 } },
  { type: 'run.finished', data: run('c1', 'console', 'error') },
  { type: 'output.delivered', data: { atMs: 6, title: 'out', text: 'text', failed: false } },
  { type: 'job.started', data: { jobId: 'j1' } },
] as unknown as GatewayEvent[];

describe('the console view of the event stream', () => {
  it('changes nothing the read model shows', () => {
    const whole = createReadModel(empty);
    const viewed = createReadModel(empty);
    for (const event of events) {
      whole.apply(event);
      const shown = consoleEventView(event);
      if (shown) viewed.apply(shown);
    }
    // Row keys are random per read model; everything else must match.
    const shown = (state: GatewayState) => ({ ...state, webhooks: state.webhooks.map(({ key: _key, ...row }) => row) });
    expect(shown(viewed.state())).toEqual(shown(whole.state()));
    expect(whole.state().webhooks).toHaveLength(1);
    expect(whole.state().runsInFlight).toEqual(['w2']);
    expect(whole.state().outputs.map((output) => output.text)).toEqual(['text', 'failed\nthe long answer of c1']);
  });

  it('leaves out what a console never reads: unfolded events, prompts, other runs\' output and tool calls', () => {
    const shown = events.map((event) => consoleEventView(event));
    expect(shown.filter((event) => event === undefined)).toHaveLength(1); // run.progressed
    expect(consoleEventView(events[2]!)!.data).toEqual({ runId: 'w1', origin: 'webhook:r:d1', atMs: 2 });
    expect(consoleEventView(events[4]!)!.data).toMatchObject({ runId: 'w1', status: 'ok', output: '', toolCalls: [] });
    expect(consoleEventView(events[10]!)).toBe(events[10]); // a console's own run: whole
    expect(events[4]!.data).toMatchObject({ output: 'the long answer of w1' }); // the journal's event is not changed
  });
  it('shows a job running from its job.started to its job.finished; a fire skipped meanwhile leaves it running', () => {
    const model = createReadModel({ ...empty, gateway: { ...empty.gateway, jobs: { ...empty.gateway.jobs, running: ['j0'] } } });
    const running = () => model.state().gateway.jobs.running;
    expect(running()).toEqual(['j0']);
    const job = (type: 'job.started' | 'job.finished', jobId: string, status?: string) => ({ type, data: { jobId, jobName: jobId, runId: `${jobId}-run`, trigger: 'manual', atMs: 1, ...(status ? { status } : {}) } }) as unknown as GatewayEvent;
    for (const event of [job('job.started', 'j1'), job('job.finished', 'j1', 'skipped')]) model.apply(consoleEventView(event)!);
    expect(running()).toEqual(['j0', 'j1']);
    model.apply(consoleEventView(job('job.finished', 'j1', 'ok'))!);
    model.apply(consoleEventView(job('job.finished', 'j0', 'error'))!);
    expect(running()).toEqual([]);
    // A snapshot read again after a rare event is the truth from then on.
    model.refresh({ gateway: { ...empty.gateway, jobs: { ...empty.gateway.jobs, running: ['j2'] } }, mcpServers: [] });
    expect(running()).toEqual(['j2']);
  });

  it('counts the runs of other nodes with their node, and leaves their console runs out of the Output pane', () => {
    const model = createReadModel(empty);
    for (const event of [
      { type: 'run.started', data: { runId: 'here', origin: 'console', prompt: 'mine', atMs: 1 } },
      { type: 'run.started', data: { runId: 'b1', origin: 'console', prompt: '', atMs: 1, node: 'node-b' } },
      { type: 'run.started', data: { runId: 'c1', origin: 'webhook:r:d1', prompt: '', atMs: 1, node: 'node-c' } },
    ] as unknown as GatewayEvent[]) model.apply(event);
    expect(model.state().runsInFlight).toEqual(['here', 'b1', 'c1']);
    expect(model.state().runNodes).toEqual({ b1: 'node-b', c1: 'node-c' });
    model.apply({ type: 'run.finished', data: { ...run('b1', 'console'), output: '', node: 'node-b' } } as unknown as GatewayEvent);
    expect(model.state().runsInFlight).toEqual(['here', 'c1']);
    expect(model.state().runNodes).toEqual({ c1: 'node-c' });
    expect(model.state().outputs).toEqual([]); // another node's console run: its own console shows the answer
  });
});
