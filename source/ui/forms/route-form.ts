import type { Operations } from '../../operations/index.js';
import { configEntryForm } from './config-entry-form.js';
import type { EditForm } from './edit-form.js';

/** `e` on a static webhook route: every key of `$defs/route`. */
export function routeForm(ops: Operations, name: string): Promise<EditForm | { error: string }> {
  return configEntryForm(ops, {
    segments: ['platforms', 'webhook', 'extra', 'routes', name],
    definition: 'route',
    title: `Edit webhook route "${name}" · empty = default`,
  });
}
