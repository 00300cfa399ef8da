import type { HomeLayout } from '../config/home.js';
import { checkConfig } from '../gateway/check-config.js';
import { readConfigFile } from '../infra/config-file.js';

/**
 * What the next start would refuse in config.json as it is on disk now. A running gateway keeps the
 * config it loaded when the file turns invalid under it, so `status` says so before a restart fails.
 */
export function problemsOnDisk(home: HomeLayout): string[] {
  let file: Record<string, unknown> | undefined;
  try {
    file = readConfigFile(home.configFile);
  } catch (error) {
    return [(error as Error).message];
  }
  if (file === undefined) return [`${home.configFile} is missing`];
  const checked = checkConfig(file, home);
  return checked.ok ? [] : checked.issues.map((issue) => (issue.path && issue.path !== '(root)' ? `${issue.path}: ${issue.reason}` : issue.reason));
}
