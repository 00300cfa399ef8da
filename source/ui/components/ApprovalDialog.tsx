import { Box, Text } from 'ink';
import { LineInput } from './LineInput.js';
import { useState } from 'react';
import type { ApprovalRecord } from '../../store/approvals.js';
import { fit, formatDuration } from '../format.js';
import { useKeys } from '../input-router.js';
import { commandFor } from '../keymap.js';
import { theme } from '../theme.js';

/** Lines the dialog takes: border 2, title, origin, tool, annotations?, margins 2, arguments (+1 when cut), keys. */
export function approvalDialogHeight(request: ApprovalRecord, maxArgLines: number): number {
  const argLines = request.argsPreview.split('\n').length;
  const shown = Math.min(argLines, maxArgLines);
  return 2 + 3 + (Object.keys(request.annotations ?? {}).length > 0 ? 1 : 0) + 2 + shown + (argLines > shown ? 1 : 0) + 1;
}

export type ApprovalChoice = { decision: 'approve' } | { decision: 'approveSession' } | { decision: 'deny'; reason?: string };

/** The head of the approval queue, "i of N": who asks, for what, with which arguments, and how long is left. */
export function ApprovalDialog({ request, position, total, now, width, maxArgLines, onChoice }: {
  request: ApprovalRecord; position: number; total: number; now: number; width: number; maxArgLines: number; onChoice: (choice: ApprovalChoice) => void;
}) {
  const [reason, setReason] = useState<string | undefined>();
  // While the reason is typed the layer is modal (`q` is a letter there); when the request goes
  // away (expired, decided elsewhere) the dialog unmounts and its layer with it.
  const { top } = useKeys((input, key) => {
    if (reason !== undefined) {
      if (key.escape) onChoice({ decision: 'deny' });
      return;
    }
    const binding = commandFor(input, key, ['approval']);
    if (binding?.command === 'approval.approve') onChoice({ decision: 'approve' });
    else if (binding?.command === 'approval.approveSession') onChoice({ decision: 'approveSession' });
    else if (binding?.command === 'approval.deny') setReason('');
    else {
      // Only quitting and help pass through the dialog to the global keys.
      const global = commandFor(input, key, ['global'])?.command;
      return !(global === 'app.quit' || global === 'help.toggle');
    }
    return true;
  }, { layer: 'overlay', modal: reason !== undefined });
  const annotations = Object.entries(request.annotations ?? {}).map(([name, value]) => `${name}: ${String(value)}`).join(', ');
  const argLines = request.argsPreview.split('\n');
  const shown = argLines.slice(0, maxArgLines);
  const inner = Math.max(10, width - 4);
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.warn} paddingX={1} width={width}>
      <Text bold color={theme.warn}>Approval {position} of {total} · {formatDuration(request.expiresAtMs - now)} left</Text>
      <Text>{fit(`from ${request.origin}`, inner)}</Text>
      <Text bold>{fit(`${request.server ? `${request.server} / ` : ''}${request.tool}${request.reason ? `  (${request.reason})` : ''}`, inner)}</Text>
      {annotations ? <Text color={theme.dim}>{fit(annotations, inner)}</Text> : null}
      <Box flexDirection="column" marginY={1}>
        {shown.map((line, index) => <Text key={index}>{fit(line, inner)}</Text>)}
        {argLines.length > shown.length ? <Text color={theme.dim}>… {argLines.length - shown.length} more lines</Text> : null}
      </Box>
      {reason === undefined ? (
        <Text color={theme.dim}>a approve once · s approve this tool for the session · d or Esc deny</Text>
      ) : (
        <Box>
          <Text>Reason (optional, Enter to deny): </Text>
          <LineInput value={reason} focus={top} onChange={setReason} onSubmit={(value) => onChoice({ decision: 'deny', reason: value.trim() || undefined })} />
        </Box>
      )}
    </Box>
  );
}
