import { Box, Text } from 'ink';
import { useMemo, useState } from 'react';
import type { ApprovalRecord } from '../../store/approvals.js';
import { elicitationFields } from '../../operations/elicitation-fields.js';
import { fit, formatDuration } from '../format.js';
import { useKeys } from '../input-router.js';
import { commandFor } from '../keymap.js';
import { theme } from '../theme.js';
import { KEYS_PAUSED, useKeyPause } from './ApprovalDialog.js';
import { Form } from './Form.js';

export type ElicitationChoice = { decision: 'answer'; values: Record<string, unknown> } | { decision: 'decline' };

/**
 * An MCP server asks the operator for input (elicitation, form mode) at the head of the approval
 * queue: first who asks and for what (`a` fills the form in, `d` declines, Esc puts it off), then the fields.
 */
export function ElicitationDialog({ request, position, total, now, width, height, pausedUntil = 0, onChoice, onDismiss }: {
  request: ApprovalRecord & { form: NonNullable<ApprovalRecord['form']> }; position: number; total: number; now: number; width: number; height: number;
  onChoice: (choice: ElicitationChoice) => void;
  /** Esc: decide later (the request stays pending; `A` reopens it). */
  onDismiss?: () => void;
  /** Keys are ignored until then (set just after a decision, like the approval dialog). */
  pausedUntil?: number;
}) {
  const fields = useMemo(() => elicitationFields(request.form.schema), [request.form.schema]);
  const [filling, setFilling] = useState(false);
  const paused = useKeyPause(pausedUntil);
  // Modal: only a, d and Esc act; q or ? are letters of the form to come (Ctrl-C still quits).
  useKeys((input, key) => {
    if (paused) return;
    const command = commandFor(input, key, ['approval'])?.command;
    if (command === 'approval.approve') setFilling(true);
    else if (command === 'approval.deny') onChoice({ decision: 'decline' });
    else if (command === 'approval.dismiss') onDismiss?.();
  }, { layer: 'overlay', active: !filling, modal: true });
  const inner = Math.max(10, width - 4);
  const heading = `Input requested ${position} of ${total} · ${formatDuration(request.expiresAtMs - now)} left · from ${request.origin}`;
  if (filling) {
    return (
      <Box flexDirection="column" flexShrink={0} width={width}>
        <Text bold color={theme.warn}>{fit(heading, width)}</Text>
        <Form
          title={request.form.message || `${request.server ?? 'The server'} asks for input`} fields={fields} width={width} height={height - 1}
          submitHint="send" cancelHint="decline"
          onSubmit={(values) => onChoice({ decision: 'answer', values: Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) })}
          onCancel={() => onChoice({ decision: 'decline' })}
        />
      </Box>
    );
  }
  const listed = fields.slice(0, Math.max(1, height - 7));
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.warn} paddingX={1} width={width}>
      <Text bold color={theme.warn}>{fit(heading, inner)}</Text>
      <Text bold>{fit(`${request.server ?? 'A server'} asks: ${request.form.message}`, inner)}</Text>
      {listed.map((field) => <Text key={field.key} color={theme.dim}>{fit(`  ${field.label}${field.required ? ' *' : ''}${field.initial ? ` (default ${field.initial})` : ''}`, inner)}</Text>)}
      {fields.length > listed.length ? <Text color={theme.dim}>{`  ... ${fields.length - listed.length} more fields`}</Text> : null}
      {paused ? <Text color={theme.warn}>{fit(KEYS_PAUSED, inner)}</Text> : <Text color={theme.dim}>{fit('a fill in the form · d decline · Esc later · * required', inner)}</Text>}
    </Box>
  );
}
