import { Box, Text } from 'ink';
import { useState } from 'react';
import { fit } from '../format.js';
import { useKeys } from '../input-router.js';
import { commandFor } from '../keymap.js';
import type { SubscribedView } from '../slash-runner.js';
import { theme } from '../theme.js';

type Step = 'card' | 'copy' | 'secret';

/**
 * What `/webhook subscribe` made: URL, masked secret, events, target. `c` then `u` copies the URL;
 * `c`, `s`, `y` copies the secret (never drawn); any other key closes the card.
 */
export function SubscriptionCard({ view, width, secretOf, onCopy, onClose }: {
  view: SubscribedView; width: number;
  secretOf: (name: string) => Promise<string>;
  onCopy: (text: string, what: string) => void; onClose: (notice?: string) => void;
}) {
  const [step, setStep] = useState<Step>('card');
  useKeys((input, key) => {
    if (step === 'card') {
      if (commandFor(input, key, ['list'])?.command === 'item.copy') return setStep('copy');
      return onClose();
    }
    if (step === 'copy') {
      if (input === 'u' && view.url) {
        onCopy(view.url, `the URL of ${view.name}`);
        return onClose();
      }
      if (input === 's' && !view.shadowed) return setStep('secret');
      return onClose('Nothing copied.');
    }
    if (input !== 'y') return onClose('Secret not copied.');
    // The secret goes to the clipboard only; the card and the notice never show it.
    void secretOf(view.name).then((secret) => {
      onCopy(secret, `the secret of ${view.name}`);
      onClose();
    }, (error: unknown) => onClose((error as Error).message));
  }, { layer: 'overlay', modal: true });
  const inner = Math.max(10, width - 4);
  const extra = Object.entries(view.deliverExtra).map(([key, value]) => `${key}=${value}`).join(' ');
  const lines: Array<[string, string]> = [
    ['URL:', view.url ?? `(listener not bound)/webhooks/${view.name}`],
    ['Secret:', `••••${view.secretKept ? ' (kept)' : ''}`],
    ['Events:', view.events.length > 0 ? view.events.join(', ') : 'all'],
    ['Deliver:', `${view.deliver}${extra ? ` ${extra}` : ''}`],
    ['Prompt:', view.prompt ?? '(the whole payload as JSON)'],
  ];
  const keys = step === 'card' ? 'c copy (u URL, s secret) · any other key closes'
    : step === 'copy' ? `Copy: u the URL${view.shadowed ? '' : ' · s the secret'} · any other key cancels`
      : `Copy the secret of ${view.name} to the clipboard? y / any other key cancels`;
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.accent} paddingX={1} width={width}>
      <Text bold>{fit(`${view.created ? 'Subscribed' : 'Updated'} "${view.name}"`, inner)}</Text>
      {lines.map(([label, value]) => <Text key={label}>{label.padEnd(10)}{fit(value, inner - 10)}</Text>)}
      {view.shadowed ? <Text color={theme.warn}>{fit(`config.json has a static route "${view.name}"; it wins until it is removed.`, inner)}</Text> : null}
      <Text color={step === 'secret' ? theme.caution : theme.dim}>{fit(keys, inner)}</Text>
    </Box>
  );
}
