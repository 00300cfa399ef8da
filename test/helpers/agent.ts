import { pino } from 'pino';
import { createAgentStack } from '../../source/agent/agent-stack.js';
import type { ApprovalPolicy } from '../../source/agent/approval-queue.js';
import { defaultConfig } from '../../source/config/default-config.js';
import type { HomeLayout } from '../../source/config/home.js';
import { resolveConfig } from '../../source/config/load.js';
import type { ConfigFile } from '../../source/config/types.js';
import { sqliteBackends } from '../../source/store/async-domains.js';
import { openStore } from '../../source/store/database.js';

/** The real agent stack over a temp home; `edit` shapes the config (model, limits, policies). */
export function makeAgentStack(home: HomeLayout, edit: (config: ConfigFile) => void, policy: ApprovalPolicy = 'deny') {
  const file = defaultConfig();
  edit(file);
  const config = resolveConfig(file, home, {});
  const store = openStore(home.stateDb);
  const { runs, approvals } = sqliteBackends(store);
  const stack = createAgentStack({ config, runs, approvals, logger: pino({ level: 'silent' }), policy });
  return { ...stack, store, config };
}
