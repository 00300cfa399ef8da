import { Box, Text } from 'ink';
import type { ConsoleState } from '../console-model.js';
import { clockTime, fit, formatDuration } from '../format.js';
import { theme } from '../theme.js';

/** One line: where the gateway is (in-process, or attached to pid N), listener, model, uptime, counts, clock. */
export function Header({ state, now, width }: { state: ConsoleState; now: number; width: number }) {
  const { snapshot, link } = state;
  const listener = snapshot.webhook.url ?? (snapshot.webhook.enabled ? 'starting' : 'webhooks off');
  const uptime = snapshot.startedAtMs ? formatDuration(now - snapshot.startedAtMs) : '-';
  const model = snapshot.modelName ? `${snapshot.model} ${snapshot.modelName}` : snapshot.model;
  const where = link.where === 'attached' ? `attached to pid ${link.hello.pid}` : 'in-process';
  const pending = state.approvals.length;
  const right = `runs ${state.runsInFlight} · approvals ${pending} · failed deliveries ${state.failedDeliveries} · ${clockTime(now)}`;
  const left = fit(`${where} · ${listener} · model ${model} · up ${uptime}`, Math.max(10, width - right.length - 14));
  return (
    <Box width={width} flexDirection="column" flexShrink={0}>
      <Box width={width} justifyContent="space-between">
        <Text wrap="truncate">
          <Text bold color={theme.accent}>switchboard</Text>
          <Text> {left}</Text>
        </Text>
        <Text wrap="truncate">
          <Text>runs {state.runsInFlight} · </Text>
          <Text color={pending > 0 ? theme.warn : undefined} bold={pending > 0}>approvals {pending}</Text>
          <Text> · </Text>
          <Text color={state.failedDeliveries > 0 ? theme.error : undefined}>failed deliveries {state.failedDeliveries}</Text>
          <Text> · {clockTime(now)}</Text>
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
    const why = { locked: 'state.db is locked by another process', full: 'the disk holding state.db is full', io: 'state.db cannot be written (I/O error)' }[health.store.fault.kind];
    const kept = health.store.keptWrites > 0 ? ` · ${health.store.keptWrites} run record(s) kept in memory until it can` : '';
    return `${why} since ${clockTime(health.store.fault.sinceMs)}: webhooks are refused with 503${kept}`;
  }
  return `logs/gateway.log cannot be written (${health.log.fault}): ${health.log.dropped} line(s) dropped`;
}

/** Lines the header takes: its own, a health banner, the disconnected banner. */
export function headerHeight(state: ConsoleState): number {
  return 1 + (healthText(state) ? 1 : 0) + (state.link.status === 'connected' ? 0 : 1);
}
