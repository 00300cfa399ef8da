import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { defaultConfig } from '../../source/config/default-config.js';
import type { HomeLayout } from '../../source/config/home.js';
import { resolveConfig } from '../../source/config/load.js';
import type { ConfigFile, RouteConfig } from '../../source/config/types.js';
import { createGateway } from '../../source/gateway/gateway.js';
import { openStore } from '../../source/store/database.js';
import { signGithub } from '../../source/webhooks/signature.js';

const require = createRequire(import.meta.url);
const examplesFile = require.resolve('@octokit/webhooks-examples/api.github.com/index.json');
const githubExamples = JSON.parse(fs.readFileSync(examplesFile, 'utf8')) as Array<{ name: string; examples: Array<Record<string, unknown>> }>;

/** A real GitHub payload from @octokit/webhooks-examples (the first of that event, with that action when given). */
export function githubExample(event: string, action?: string): Record<string, unknown> {
  const examples = githubExamples.find((entry) => entry.name === event)?.examples ?? [];
  const found = action === undefined ? examples[0] : examples.find((example) => example.action === action);
  if (!found) throw new Error(`no @octokit/webhooks-examples payload for ${event} ${action ?? ''}`);
  return found;
}

/** Real GitLab payloads, copied from ../shared/fixtures/gitlab (MIT, see LICENSE there) so the suite runs anywhere. */
export const gitlabDir = path.resolve(import.meta.dirname, '../fixtures/gitlab');
/** Real GitLab payloads (MIT, see the LICENSE beside them) with the X-Gitlab-Event value GitLab sends. */
export const gitlabFixtures: Array<{ file: string; event: string }> = [
  { file: 'merge-request-event.json', event: 'Merge Request Hook' },
  { file: 'push-event.json', event: 'Push Hook' },
  { file: 'pipeline-event.json', event: 'Pipeline Hook' },
  { file: 'issue-event.json', event: 'Issue Hook' },
  { file: 'comment-merge-request-event.json', event: 'Note Hook' },
  { file: 'job-event.json', event: 'Job Hook' },
  { file: 'tag-event.json', event: 'Tag Push Hook' },
];

export function gitlabPayload(file: string): string {
  return fs.readFileSync(path.join(gitlabDir, file), 'utf8');
}

/** Headers GitHub sends for one delivery, signed with `secret`. */
export function githubHeaders(secret: string, body: string, event: string, deliveryId: string = randomUUID()): Record<string, string> {
  return { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': deliveryId, 'x-hub-signature-256': signGithub(secret, body), 'user-agent': 'GitHub-Hookshot/test' };
}

export const SECRET = 'test-secret-0123456789';

export interface LogCapture {
  lines: string[];
  text(): string;
}

/** A pino logger whose JSON lines are kept in memory (what gateway.log would hold). */
export function captureLogger(level = 'debug'): { logger: pino.Logger; log: LogCapture } {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(...chunk.toString().split('\n').filter(Boolean)); done(); } });
  return { logger: pino({ level }, stream), log: { lines, text: () => lines.join('\n') } };
}

export interface WebhookGatewayOptions {
  routes?: Record<string, RouteConfig>;
  edit?: (config: ConfigFile) => void;
  now?: () => number;
  level?: string;
}

/** The real gateway (dry-run model unless `edit` says otherwise) over a temp home, port 0, with captured logs. */
export function makeWebhookGateway(home: HomeLayout, options: WebhookGatewayOptions = {}) {
  const file = defaultConfig();
  const extra = file.platforms!.webhook!.extra!;
  extra.port = 0;
  extra.routes = options.routes ?? { hook: { secret: SECRET } };
  options.edit?.(file);
  const config = resolveConfig(file, home, {});
  const store = openStore(home.stateDb);
  const { logger, log } = captureLogger(options.level);
  const gateway = createGateway({ config, store, logger, now: options.now });
  return { gateway, store, config, log, app: gateway.webhookApp! };
}

/** Polls `check` until it returns a truthy value (no fixed sleeps). */
export async function waitUntil<T>(check: () => T | Promise<T>, timeoutMs = 20_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
