import { Box, Text } from 'ink';
import { LineInput } from '../components/LineInput.js';
import { useKeys } from '../input-router.js';
import { fit } from '../format.js';
import { theme } from '../theme.js';

export const SAMPLE_TEST_PAYLOAD = '{"test": true, "message": "Test delivery from the switchboard console"}';
export const TEST_EDITOR_LINES = 4;

/** The test request being edited: kept per route, so an invalid payload or an Esc loses nothing. */
export interface TestDraft { route: string; event: string; text: string; field: 'event' | 'payload'; error?: string }

export function newDraft(route: string): TestDraft {
  return { route, event: 'test', text: SAMPLE_TEST_PAYLOAD, field: 'payload' };
}

/** The payload as a JSON object, or the reason it is not one (shown in place, the edit kept). */
export function parsePayload(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'the payload must be a JSON object, e.g. {"action": "opened"}' };
    return { ok: true, value: parsed as Record<string, unknown> };
  } catch (error) {
    return { ok: false, reason: `invalid JSON: ${(error as Error).message}` };
  }
}

/**
 * `t` on a route: the event name and the JSON payload of a signed test request, drawn under the
 * selected row. A modal layer: typed keys stay here; Tab switches fields, Enter sends, Esc closes.
 */
export function WebhookTestEditor({ draft, width, focused, onChange, onSend, onClose }: {
  draft: TestDraft; width: number; focused: boolean;
  onChange: (draft: TestDraft) => void; onSend: (draft: TestDraft) => void; onClose: () => void;
}) {
  const other = (): TestDraft => ({ ...draft, field: draft.field === 'event' ? 'payload' : 'event' });
  const { top } = useKeys((_input, key) => {
    if (key.escape) onClose();
    else if (key.tab || key.upArrow || key.downArrow) onChange(other());
    // Everything else is text for the focused field (the modal layer keeps it from the console).
  }, { layer: 'pane', active: focused, modal: true });
  const submit = () => {
    if (draft.field === 'event') return onChange(other());
    if (draft.event.trim() === '') return onChange({ ...draft, field: 'event', error: 'the event name is empty (GitHub sends e.g. issues, push, ping)' });
    const payload = parsePayload(draft.text);
    if (!payload.ok) return onChange({ ...draft, error: payload.reason });
    onSend(draft);
  };
  const label = (field: TestDraft['field'], text: string) => <Text color={draft.field === field ? theme.accent : theme.dim}>{text}</Text>;
  return (
    <Box flexDirection="column" width={width}>
      <Box height={1} overflow="hidden">
        {label('event', `  event ${draft.field === 'event' ? '›' : ' '} `)}
        <LineInput value={draft.event} focus={top && draft.field === 'event'} onChange={(event) => onChange({ ...draft, event, error: undefined })} onSubmit={submit} />
      </Box>
      <Box height={1} overflow="hidden">
        {label('payload', `  body  ${draft.field === 'payload' ? '›' : ' '} `)}
        <LineInput value={draft.text} focus={top && draft.field === 'payload'} onChange={(text) => onChange({ ...draft, text, error: undefined })} onSubmit={submit} />
      </Box>
      <Text color={draft.error ? theme.error : theme.dim}>{fit(draft.error ? `  Not sent: ${draft.error}` : `  A signed test request to route ${draft.route}, through the intake.`, width)}</Text>
      <Text color={theme.dim}>{fit('  Tab event/body · Enter send · Esc close (the edit is kept)', width)}</Text>
    </Box>
  );
}
