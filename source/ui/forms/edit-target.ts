import type { Operations } from '../../operations/index.js';
import type { EditForm } from './edit-form.js';
import { jobForm } from './job-form.js';
import { mcpServerForm } from './mcp-server-form.js';
import { routeForm } from './route-form.js';

/** What `e` was pressed on. */
export type EditTarget = { kind: 'mcp'; name: string } | { kind: 'route'; name: string } | { kind: 'subscription'; name: string } | { kind: 'job'; id: string };

/** The form for the selected item, or why there is none. */
export async function editFormFor(ops: Operations, target: EditTarget): Promise<EditForm | { error: string }> {
  switch (target.kind) {
    case 'mcp': return mcpServerForm(ops, target.name);
    case 'route': return routeForm(ops, target.name);
    case 'subscription': return { error: `"${target.name}" is a subscription: change it with /webhook subscribe ${target.name} --events ... (options left out are kept).` };
    case 'job': {
      try {
        return jobForm(ops, (await ops.jobs.show({ job: target.id })).job);
      } catch (error) {
        return { error: `Cannot edit: ${(error as Error).message}` };
      }
    }
  }
}
