import type { ConsoleGateway } from '../console-model.js';
import type { EditForm } from './edit-form.js';
import { jobForm } from './job-form.js';
import { mcpServerForm } from './mcp-server-form.js';
import { routeForm } from './route-form.js';

/** What `e` was pressed on. */
export type EditTarget = { kind: 'mcp'; name: string } | { kind: 'route'; name: string } | { kind: 'subscription'; name: string } | { kind: 'job'; id: string };

/** The form for the selected item, or why there is none. */
export function editFormFor(gateway: Pick<ConsoleGateway, 'config' | 'jobs'>, target: EditTarget): EditForm | { error: string } {
  switch (target.kind) {
    case 'mcp': return mcpServerForm(gateway.config, target.name);
    case 'route': return routeForm(gateway.config, target.name);
    case 'subscription': return { error: `"${target.name}" is a subscription: change it with /webhook subscribe ${target.name} --events ... (options left out are kept).` };
    case 'job': {
      const found = gateway.jobs.find(target.id);
      return found.ok ? jobForm(gateway.jobs, found.value) : { error: `Cannot edit: ${found.reason}` };
    }
  }
}
