import { Box, Text, type Key } from 'ink';
import { useEffect, useState } from 'react';
import type { ApprovalRecord } from '../../store/approvals.js';
import { fit, formatDuration, wrapText } from '../format.js';
import { useKeys } from '../input-router.js';
import { commandFor } from '../keymap.js';
import { theme } from '../theme.js';
import { LineInput } from './LineInput.js';

/** After a decision the next dialog ignores keys this long: a double tap of `a` never approves a request unseen. */
export const KEY_GUARD_MS = 400;

/** Lines the dialog takes: border 2, title, origin, tool, annotations?, margins 2, arguments (+1 position line when they scroll), keys. */
export function approvalDialogHeight(request: ApprovalRecord, maxArgLines: number, width: number): number {
  const argLines = wrapText(request.argsPreview, argsWidth(width)).length;
  const shown = Math.min(argLines, maxArgLines);
  return 2 + 3 + (Object.keys(request.annotations ?? {}).length > 0 ? 1 : 0) + 2 + shown + (argLines > shown ? 1 : 0) + 1;
}

const argsWidth = (width: number) => Math.max(10, width - 4);

/** Whether a dialog's keys are still paused; `until` is read at mount, so later renders do not extend it. */
export function useKeyPause(until: number): boolean {
  const [end] = useState(until);
  const [paused, setPaused] = useState(() => Date.now() < end);
  useEffect(() => {
    if (!paused) return undefined;
    const timer = setTimeout(() => setPaused(false), Math.max(0, end - Date.now()));
    return () => clearTimeout(timer);
  }, [paused, end]);
  return paused;
}

export const KEYS_PAUSED = 'keys paused for a moment: a new request, read it first';

export type ApprovalChoice = { decision: 'approve' } | { decision: 'approveSession' } | { decision: 'deny'; reason?: string };

/** A window over the argument lines; `seen` is how far down the operator has scrolled (approving needs all of it). */
function useArgsWindow(total: number, size: number) {
  const [offset, setOffset] = useState(0);
  const [seen, setSeen] = useState(Math.min(total, size));
  const last = Math.max(0, total - size);
  const moveTo = (next: number) => {
    const start = Math.min(last, Math.max(0, next));
    setOffset(start);
    setSeen((before) => Math.max(before, Math.min(total, start + size)));
  };
  // A taller window (terminal resized) shows more at once.
  const start = Math.min(offset, last);
  if (seen < Math.min(total, start + size)) setSeen(Math.min(total, start + size));
  return { start, end: Math.min(total, start + size), unseen: total - seen, seenTo: seen, moveTo, page: Math.max(1, size - 1) };
}

/**
 * The head of the approval queue, "i of N": who asks, for what, with all of its arguments (wrapped,
 * scrollable), and how long is left. Approving needs every argument line shown first; Esc puts the
 * request off without deciding (it stays pending, `A` reopens it). `pausedUntil` keeps keys off for
 * a moment after the previous decision.
 */
export function ApprovalDialog({ request, position, total, now, width, maxArgLines, pausedUntil = 0, onChoice, onDismiss }: {
  request: ApprovalRecord; position: number; total: number; now: number; width: number; maxArgLines: number;
  pausedUntil?: number; onChoice: (choice: ApprovalChoice) => void; onDismiss?: () => void;
}) {
  const [reason, setReason] = useState<string | undefined>();
  const [warning, setWarning] = useState<string | undefined>();
  const [decided, setDecided] = useState(false);
  const paused = useKeyPause(pausedUntil);
  const inner = argsWidth(width);
  const lines = wrapText(request.argsPreview, inner);
  const view = useArgsWindow(lines.length, maxArgLines);
  const choose = (choice: ApprovalChoice) => {
    setDecided(true);
    onChoice(choice);
  };
  const approve = (choice: ApprovalChoice) => {
    if (view.unseen === 0) return choose(choice);
    setWarning(`Not approved: lines ${view.seenTo + 1}-${lines.length} not shown yet; scroll down (j ↓ PgDn) first`);
  };
  const scroll = (key: Key, input: string, page: boolean) => {
    const down = page ? key.pageDown : key.downArrow || input === 'j';
    view.moveTo(view.start + (down ? 1 : -1) * (page ? view.page : 1));
    setWarning(undefined);
  };
  // While the reason is typed the layer is modal (`q` is a letter there); when the request goes
  // away (expired, decided elsewhere) the dialog unmounts and its layer with it.
  const { top } = useKeys((input, key) => {
    const global = commandFor(input, key, ['global'])?.command;
    // Paused or already decided: every key stops here but quitting (Ctrl-C) and help, and Esc once
    // decided (should the decision fail, e.g. the gateway gone, the dialog can still be put off).
    if (decided && !paused && key.escape) onDismiss?.();
    if (paused || decided) return !(global === 'app.quit' && key.ctrl) && global !== 'help.toggle';
    if (reason !== undefined) {
      if (key.escape) setReason(undefined);
      return;
    }
    const command = commandFor(input, key, ['approval'])?.command;
    if (command === 'approval.approve') approve({ decision: 'approve' });
    else if (command === 'approval.approveSession') approve({ decision: 'approveSession' });
    else if (command === 'approval.deny') setReason('');
    else if (command === 'approval.dismiss') onDismiss?.();
    else if (command === 'approval.scroll' || command === 'approval.page') scroll(key, input, command === 'approval.page');
    // Only quitting and help pass through the dialog to the global keys.
    else return !(global === 'app.quit' || global === 'help.toggle');
    return true;
  }, { layer: 'overlay', modal: reason !== undefined });
  const annotations = Object.entries(request.annotations ?? {}).map(([name, value]) => `${name}: ${String(value)}`).join(', ');
  const scrolls = lines.length > maxArgLines;
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.warn} paddingX={1} width={width}>
      <Text bold color={theme.warn}>Approval {position} of {total} · {formatDuration(request.expiresAtMs - now)} left</Text>
      <Text>{fit(`from ${request.origin}${request.node ? ` on node ${request.node}` : ''}`, inner)}</Text>
      <Text bold>{fit(`${request.server ? `${request.server} / ` : ''}${request.tool}${request.reason ? `  (${request.reason})` : ''}`, inner)}</Text>
      {annotations ? <Text color={theme.dim}>{fit(annotations, inner)}</Text> : null}
      <Box flexDirection="column" marginY={1}>
        {lines.slice(view.start, view.end).map((line, index) => <Text key={view.start + index} wrap="truncate">{line}</Text>)}
        {scrolls ? (
          <Text color={view.end < lines.length ? theme.warn : theme.dim}>
            {`lines ${view.start + 1}-${view.end} of ${lines.length}${view.end < lines.length ? ', ↓ for more' : ''}${view.start > 0 ? ' (↑ back)' : ''}`}
          </Text>
        ) : null}
      </Box>
      <DialogKeys reason={reason} paused={paused} warning={warning} inner={inner} top={top} onReason={setReason} onDeny={(value) => choose({ decision: 'deny', reason: value.trim() || undefined })} />
    </Box>
  );
}

/** The dialog's last line: what the keys do, why they are paused, why `a` did not approve, or the deny reason being typed. */
function DialogKeys({ reason, paused, warning, inner, top, onReason, onDeny }: {
  reason: string | undefined; paused: boolean; warning: string | undefined; inner: number; top: boolean; onReason: (value: string) => void; onDeny: (value: string) => void;
}) {
  if (reason !== undefined) {
    return (
      <Box>
        <Text>Reason (optional, Enter to deny): </Text>
        <LineInput value={reason} focus={top} onChange={onReason} onSubmit={onDeny} />
      </Box>
    );
  }
  if (paused) return <Text color={theme.warn}>{fit(KEYS_PAUSED, inner)}</Text>;
  if (warning) return <Text color={theme.error}>{fit(warning, inner)}</Text>;
  return <Text color={theme.dim}>{fit('a approve once · s approve for the session · d deny · Esc later (A reopens)', inner)}</Text>;
}
