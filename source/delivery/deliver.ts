import type { Logger } from 'pino';
import { deliverToLocal } from './local-target.js';
import { deliverToLog } from './log-target.js';
import type { Deliver } from './types.js';

export interface DeliverDeps {
  homeRoot: string;
  logger: Logger;
  now?: () => number;
}

/** Routes each output to its target kind. Targets not built yet fail with a plain reason, never silently. */
export function createDeliver(deps: DeliverDeps): Deliver {
  const now = deps.now ?? Date.now;
  return async (request) => {
    const kind = request.target.split(':')[0] ?? '';
    switch (kind) {
      case 'log':
        return deliverToLog(deps.logger, request);
      case 'local':
        return deliverToLocal(deps.homeRoot, request, now);
      default:
        return { ok: false, reason: `delivery target "${request.target}" is not available yet (only log and local are built)` };
    }
  };
}
