import { Box, Text } from 'ink';
import { LineInput } from './LineInput.js';
import { useEffect, useState } from 'react';
import { fit } from '../format.js';
import { parseFields, type FieldErrors, type FormField } from '../../operations/form-fields.js';
import { useKeys } from '../input-router.js';
import { commandFor } from '../keymap.js';
import { theme } from '../theme.js';

export const SECRET_PLACEHOLDER = '•••• (kept; type to replace)';

/**
 * A form driven by a field list: one text input per field, the focused one live. Enter moves on and
 * saves from the last field; Esc cancels. Values are parsed by kind before `onSubmit`; problems from
 * the caller (`errors`, e.g. schema issues naming the config key) show under their fields.
 */
export function Form({ title, fields, width, height, errors = {}, busy = false, submitHint = 'save', cancelHint = 'cancel', onSubmit, onCancel }: {
  title: string; fields: readonly FormField[]; width: number; height: number; errors?: FieldErrors; busy?: boolean;
  submitHint?: string; cancelHint?: string;
  onSubmit: (values: Record<string, unknown>) => void; onCancel: () => void;
}) {
  const [texts, setTexts] = useState<Record<string, string>>(() => Object.fromEntries(fields.map((field) => [field.key, field.initial])));
  const [focus, setFocus] = useState(0);
  const [localErrors, setLocalErrors] = useState<FieldErrors>({});
  const shown: FieldErrors = { ...errors, ...localErrors };
  // Problems found on save (schema issues from the core): go to the first field that has one.
  useEffect(() => {
    const first = fields.findIndex((field) => errors[field.key] !== undefined);
    if (first >= 0) setFocus(first);
  }, [errors, fields]);

  // Modal: letters are text for the focused field, never global keys (q, ?, 1-6).
  const { top } = useKeys((input, key) => {
    if (busy) return;
    const command = commandFor(input, key, ['form'])?.command;
    if (command === 'form.cancel') return onCancel();
    if (command === 'form.previous') return setFocus(Math.max(0, focus - 1));
    if (command === 'form.next') return setFocus(Math.min(fields.length - 1, focus + 1));
    if (command !== 'form.submit') return;
    if (focus < fields.length - 1) return setFocus(focus + 1);
    const parsed = parseFields(fields, texts);
    if (!parsed.ok) {
      setLocalErrors(parsed.errors);
      return setFocus(Math.max(0, fields.findIndex((field) => parsed.errors[field.key] !== undefined)));
    }
    setLocalErrors({});
    onSubmit(parsed.values);
  }, { layer: 'overlay', modal: true });

  const inner = Math.max(10, width - 4);
  // As wide as the longest label, up to half the width: the value takes the rest.
  const labelWidth = Math.min(Math.floor(inner / 2), Math.max(...fields.map((field) => field.label.length + (field.required ? 2 : 0))) + 1);
  const valueWidth = Math.max(4, inner - labelWidth - 3);
  // Window: title, the form-level error, the hint and the key line take 4 lines; the rest shows fields around the focus.
  const room = Math.max(1, height - 2 - 4 - (shown[''] ? 1 : 0));
  const errorLines = (index: number) => (shown[fields[index]!.key] ? 1 : 0);
  // The focused input wraps over up to 3 lines (long prompts); the others are cut to one.
  const focusLines = Math.min(3, Math.ceil(((texts[fields[focus]?.key ?? ''] ?? '').length + 1) / valueWidth));
  let start = focus;
  let end = focus + 1;
  let used = focusLines + errorLines(focus);
  while (used < room && (start > 0 || end < fields.length)) {
    if (end < fields.length && used + 1 + errorLines(end) <= room) used += 1 + errorLines(end++);
    else if (start > 0 && used + 1 + errorLines(start - 1) <= room) used += 1 + errorLines(--start);
    else break;
  }
  const focused = fields[focus];
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.accent} paddingX={1} width={width} overflow="hidden">
      <Text bold>{fit(`${title}${fields.length > room ? `  (field ${focus + 1} of ${fields.length})` : ''}`, inner)}</Text>
      {shown[''] ? <Text color={theme.error}>{fit(shown[''], inner)}</Text> : null}
      {fields.slice(start, end).map((field, offset) => {
        const index = start + offset;
        const text = texts[field.key] ?? '';
        const label = `${field.label}${field.required ? ' *' : ''}`.padEnd(labelWidth);
        return (
          <Box key={field.key} flexDirection="column">
            <Box>
              <Text color={index === focus ? theme.accent : undefined}>{`${index === focus ? '❯' : ' '} ${fit(label, labelWidth).padEnd(labelWidth)} `}</Text>
              {index === focus && !busy ? (
                <Box width={valueWidth} height={focusLines} overflow="hidden">
                  <LineInput
                    value={text}
                    focus={top}
                    mask={field.kind === 'secret' ? '•' : undefined}
                    placeholder={field.kind === 'secret' ? SECRET_PLACEHOLDER : ''}
                    onChange={(value) => setTexts({ ...texts, [field.key]: value })}
                  />
                </Box>
              ) : (
                <Text dimColor={field.kind === 'secret' && text === ''}>{fit(field.kind === 'secret' ? (text === '' ? '••••' : '•'.repeat(text.length)) : text, valueWidth)}</Text>
              )}
            </Box>
            {shown[field.key] ? <Text color={theme.error}>{fit(`  ${shown[field.key]}`, inner)}</Text> : null}
          </Box>
        );
      })}
      <Text color={theme.dim}>{fit(focused?.hint ?? '', inner)}</Text>
      <Text color={theme.dim}>{fit(busy ? 'Applying...' : `Tab/↑↓ move · Enter next, on the last field ${submitHint} · Esc ${cancelHint}`, inner)}</Text>
    </Box>
  );
}
