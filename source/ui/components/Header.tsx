import { storeFaultText } from '../../operations/health.js';
import { Box, Text } from 'ink';
import type { ConsoleState } from '../console-model.js';
import { clockTime, fit, formatDuration } from '../format.js';
import { theme } from '../theme.js';

/**
 * Shorter and shorter forms of the header line, most informative first. The listener URL and the
 * model are kept to the last (an operator at 80 columns needs them); the uptime, clock, brand and
 * long labels go first, "attached to" after the brand.
 */
function headerForms(state: ConsoleState, now: number) {
  const { snapshot, link } = state;
  const listener = snapshot.webhook.url ?? listenerState(snapshot);
  const uptime = snapshot.startedAtMs ? ` · up ${formatDuration(now - snapshot.startedAtMs)}` : '';
  const model = snapshot.modelName ? `${snapshot.model} ${snapshot.modelName}` : snapshot.model;
  const pid = link.where === 'attached' ? link.hello.pid : undefined;
  // Cluster mode: which node this is, as `status` and /nodes name it (the shorter forms keep the pid only).
  const node = snapshot.node;
  const where = pid === undefined ? (node ? `in-process node ${node}` : 'in-process') : (node ? `attached to ${node} (pid ${pid})` : `attached to pid ${pid}`);
  const long = { brand: true, where, rest: ` · ${listener} · model ${model}`, approvals: 'approvals', failed: 'failed deliveries' };
  const clock = ` · ${clockTime(now)}`;
  return [
    { ...long, rest: `${long.rest}${uptime}`, clock },
    { ...long, clock },
    { ...long, clock: '' },
    { ...long, failed: 'failed', clock: '' },
    // Where the console is (attached to a gateway, or running it) outlasts the brand.
    { ...long, brand: false, failed: 'failed', clock: '' },
    { ...long, brand: false, rest: ` · ${listener} · ${model}`, failed: 'failed', clock: '' },
    { brand: false, where: pid === undefined ? 'in-process' : `pid ${pid}`, rest: ` · ${listener} · ${model}`, approvals: 'approvals', failed: 'failed', clock: '' },
    { brand: false, where: pid === undefined ? 'in-process' : `pid ${pid}`, rest: ` · ${listener} · ${snapshot.modelName ?? model}`, approvals: 'approvals', failed: 'failed', clock: '' },
    { brand: false, where: pid === undefined ? 'in-process' : `pid ${pid}`, rest: ` · ${listener} · ${snapshot.modelName ?? model}`, approvals: 'appr', failed: 'failed', clock: '' },
    { brand: false, where: pid === undefined ? 'local' : `${pid}`, rest: ` · ${listener} · ${snapshot.modelName ?? model}`, approvals: 'appr', failed: 'fail', clock: '' },
  ];
}

/** The listener without a URL: not configured, not up yet, or gone with a gateway that stopped. */
function listenerState(snapshot: ConsoleState['snapshot']): string {
  if (!snapshot.webhook.enabled) return 'webhooks off';
  return snapshot.status === 'stopping' || snapshot.status === 'stopped' ? `gateway ${snapshot.status}` : 'starting';
}

/** One line: where the gateway is (in-process, or attached to pid N), listener, model, uptime, counts, clock. */
export function Header({ state, now, width }: { state: ConsoleState; now: number; width: number }) {
  const { link } = state;
  const pending = state.approvals.length;
  const rightOf = (form: ReturnType<typeof headerForms>[number]) => `runs ${state.runsInFlight} · ${form.approvals} ${pending} · ${form.failed} ${state.failedDeliveries}${form.clock}`;
  const lengthOf = (form: ReturnType<typeof headerForms>[number]) => (form.brand ? 12 : 0) + form.where.length + form.rest.length + 2 + rightOf(form).length;
  const forms = headerForms(state, now);
  const form = forms.find((candidate) => lengthOf(candidate) <= width) ?? forms.at(-1)!;
  const left = fit(`${form.where}${form.rest}`, Math.max(10, width - rightOf(form).length - (form.brand ? 14 : 2)));
  return (
    <Box width={width} flexDirection="column" flexShrink={0}>
      <Box width={width} justifyContent="space-between">
        <Text wrap="truncate">
          {form.brand ? <Text bold color={theme.accent}>switchboard </Text> : null}
          <Text>{left}</Text>
        </Text>
        <Text wrap="truncate">
          <Text>{'  '}runs {state.runsInFlight} · </Text>
          <Text color={pending > 0 ? theme.warn : undefined} bold={pending > 0}>{form.approvals} {pending}</Text>
          <Text> · </Text>
          <Text color={state.failedDeliveries > 0 ? theme.error : undefined}>{form.failed} {state.failedDeliveries}</Text>
          {form.clock ? <Text>{form.clock}</Text> : null}
        </Text>
      </Box>
      {healthText(state) ? <Text color={theme.error} inverse wrap="truncate">{fit(` ${healthText(state)} `, width)}</Text> : null}
      {link.status === 'connected' ? null : (
        <Text color={theme.error} inverse wrap="truncate">
          {fit(` disconnected from the gateway (pid ${link.hello.pid}), retrying${link.detail ? `: ${link.detail}` : ''} · what shows is as it was `, width)}
        </Text>
      )}
    </Box>
  );
}

/** A store or log fault, as /health reports it: the operator sees why webhooks get 503. */
function healthText({ snapshot }: ConsoleState): string | undefined {
  const { health } = snapshot;
  if (!health || health.status === 'ok') return undefined;
  if (health.store.fault) {
    const why = storeFaultText(health.store.fault.kind);
    const kept = health.store.keptWrites > 0 ? ` · ${health.store.keptWrites} run record(s) kept in memory until it can` : '';
    return `${why} since ${clockTime(health.store.fault.sinceMs)}: webhooks are refused with 503${kept}`;
  }
  return `logs/gateway.log cannot be written (${health.log.fault}): ${health.log.dropped} line(s) dropped`;
}

/** Lines the header takes: its own, a health banner, the disconnected banner. */
export function headerHeight(state: ConsoleState): number {
  return 1 + (healthText(state) ? 1 : 0) + (state.link.status === 'connected' ? 0 : 1);
}
