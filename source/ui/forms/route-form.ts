import type { ConfigCommands } from '../../gateway/config-commands.js';
import { configEntryForm } from './config-entry-form.js';
import type { EditForm } from './edit-form.js';

/** `e` on a static webhook route: every key of `$defs/route`. */
export function routeForm(config: Pick<ConfigCommands, 'read' | 'set'>, name: string): EditForm | { error: string } {
  return configEntryForm(config, {
    segments: ['platforms', 'webhook', 'extra', 'routes', name],
    definition: 'route',
    title: `Edit webhook route "${name}" · empty = default`,
  });
}
