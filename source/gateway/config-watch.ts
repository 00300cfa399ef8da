import { mtimeOf } from '../infra/mtime.js';
import type { Logger } from 'pino';
import type { ConfigChangeResult } from './config-commands.js';
import type { Component } from './lifecycle.js';

/**
 * Applies edits made to config.json by other processes (`config set`, `mcp add/remove/install`, an
 * editor): about once a second the file's mtime is compared, and a change goes through the same
 * reload as the console's `E`, so MCP servers and routes follow the file and an invalid file changes
 * nothing (one warning per bad version).
 */
export function createConfigWatch(deps: {
  file: string;
  reload: () => Promise<ConfigChangeResult>;
  /** The console's editor is open: its reload on return applies the edit. */
  paused: () => boolean;
  logger: Logger;
  intervalMs?: number;
}): Component {
  let timer: NodeJS.Timeout | undefined;
  let seenMtimeMs = 0;
  let checking: Promise<void> | undefined;

  const check = () => {
    const mtimeMs = mtimeOf(deps.file);
    if (mtimeMs === seenMtimeMs || checking) return;
    seenMtimeMs = mtimeMs;
    if (deps.paused()) return;
    checking = deps.reload().then((result) => {
      if (result.ok) return;
      // A file that cannot be read has no key problems: its reason says it all.
      const problems = result.issues.map((issue) => `${issue.path}: ${issue.reason}`).join('; ');
      deps.logger.warn(`config.json changed on disk but was not applied: ${result.reason}${problems ? `: ${problems}` : ''}`);
    }, (error: unknown) => {
      deps.logger.warn(`config.json changed on disk but could not be applied: ${(error as Error).message}`);
    }).finally(() => { checking = undefined; });
  };

  return {
    name: 'config watch',
    start: () => {
      seenMtimeMs = mtimeOf(deps.file);
      timer = setInterval(check, deps.intervalMs ?? 1000);
      timer.unref();
    },
    stop: async () => {
      if (timer) clearInterval(timer);
      await checking;
    },
  };
}
