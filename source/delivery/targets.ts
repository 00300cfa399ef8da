import { escapeControls } from '../infra/control-chars.js';
import { apiBase, requiredSettings, setting, type MessagingKind, type PlatformSettings } from './platforms.js';
import type { DeliverExtra } from './types.js';

export type TargetKind = 'log' | 'local' | 'origin' | 'github_comment' | MessagingKind;

const kinds: readonly TargetKind[] = ['log', 'local', 'origin', 'github_comment', 'telegram', 'discord', 'slack', 'signal', 'sms', 'email'];
const messaging = new Set<string>(['telegram', 'discord', 'slack', 'signal', 'sms', 'email']);
const unresolved = /\$\{[^{}]+\}/;
/** GitHub's owner/name: letters, digits, `-`, `_`, `.`; never starting with `-` or `.` (no `gh` option, no path segment). */
const repoPattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\/[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
const threads = new Set<string>(['telegram', 'slack', 'discord']);
/** A `deliver_extra` value where a platform wants text (a recipient, a repo): 42 -> "42", absent -> "". */
const text = (value: string | number | boolean | undefined): string => (value === undefined ? '' : String(value));

export interface ParsedTarget {
  kind: TargetKind;
  /** The recipient written in the target string (`telegram:<chat_id>`, `email:<address>`...). */
  recipient?: string;
  /**
   * Thread to post in: `deliver_extra.thread_id`, else `telegram:<chat_id>:<thread_id>`. Telegram gets it
   * as `message_thread_id`, Slack as `thread_ts`, Discord posts into the thread (a thread is a channel).
   */
  threadId?: string;
}

export type TargetCheck<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Splits `kind[:recipient[:thread]]`. Email addresses and phone numbers keep everything after the first colon. */
export function parseTarget(target: string): TargetCheck<ParsedTarget> {
  const trimmed = target.trim();
  const colon = trimmed.indexOf(':');
  const kind = (colon === -1 ? trimmed : trimmed.slice(0, colon)) as TargetKind;
  const rest = colon === -1 ? '' : trimmed.slice(colon + 1);
  if (!kinds.includes(kind)) return { ok: false, reason: `unknown delivery target "${target}"; use one of: ${kinds.join(', ')} (messaging targets take ":<recipient>")` };
  if (!messaging.has(kind)) {
    return rest === '' ? { ok: true, value: { kind } } : { ok: false, reason: `delivery target "${kind}" takes no ":${rest}" part` };
  }
  if (colon !== -1 && rest === '') return { ok: false, reason: `delivery target "${target}" has an empty recipient` };
  if (kind === 'telegram' && rest.includes(':')) {
    const [chat, thread, ...extra] = rest.split(':');
    if (extra.length > 0 || !chat || !thread || !/^\d+$/.test(thread)) return { ok: false, reason: `telegram target must be telegram:<chat_id>:<thread_id> with a numeric thread id (got "${target}")` };
    return { ok: true, value: { kind, recipient: chat, threadId: thread } };
  }
  return { ok: true, value: { kind, ...(rest ? { recipient: rest } : {}) } };
}

export interface ResolvedTarget extends ParsedTarget {
  settings?: Record<string, unknown>;
  baseUrl?: string;
}

/**
 * Checks a target where it is written (subscribe, cron create, config load, the cronjob tool) and
 * again at delivery: known kind, platform enabled, credentials present, a recipient from
 * `deliver_extra.chat_id`, else the target string, else the home channel.
 */
export function resolveTarget(target: string, extra: Readonly<Partial<DeliverExtra>>, platforms: PlatformSettings, context: { for: 'webhook' | 'job' }): TargetCheck<ResolvedTarget> {
  const parsed = parseTarget(target);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  if (value.kind === 'origin' && context.for === 'webhook') return { ok: false, reason: 'delivery target "origin" is for jobs (the console pane or chat a job came from); a webhook has no origin: use log, local, github_comment or a messaging target' };
  if (value.kind === 'github_comment') {
    if (context.for === 'job') return { ok: false, reason: 'delivery target "github_comment" needs a pull request (deliver_extra.repo and pr_number, rendered from a webhook payload): a job has none; use log, local, origin or a messaging target' };
    for (const key of ['repo', 'pr_number'] as const) {
      if (text(extra[key]) === '') return { ok: false, reason: `github_comment needs deliver_extra.${key} (e.g. repo: "{repository.full_name}", pr_number: "{number}")` };
    }
    return { ok: true, value };
  }
  if (!messaging.has(value.kind)) return { ok: true, value };
  const kind = value.kind as MessagingKind;
  const settings = platforms[kind];
  if (settings?.enabled !== true) return { ok: false, reason: `platforms.${kind} is not enabled: set platforms.${kind}.enabled to true and its credentials (${requiredSettings[kind].join(', ')})` };
  for (const key of requiredSettings[kind]) {
    const configured = setting(settings, key);
    if (!configured) return { ok: false, reason: `platforms.${kind}.${key} is not set` };
    if (unresolved.test(configured)) return { ok: false, reason: `platforms.${kind}.${key} refers to ${unresolved.exec(configured)![0]}, which is not set (add it to $SWITCHBOARD_HOME/.env)` };
  }
  const recipient = text(extra.chat_id) || value.recipient || setting(settings, 'home_channel');
  if (!recipient) return { ok: false, reason: `no recipient for ${kind}: write ${kind}:<recipient>, set deliver_extra.chat_id, or set platforms.${kind}.home_channel` };
  const threadId = text(extra.thread_id) || value.threadId;
  if (threadId && !threads.has(kind)) return { ok: false, reason: `deliver_extra.thread_id: ${kind} has no threads (telegram, slack and discord do)` };
  // An email recipient is one address: a rendered value with CR/LF, a comma or a display name must not add recipients or headers.
  if (kind === 'email' && !/^[^\s@,;<>"'()[\]\\:]+@[^\s@,;<>"'()[\]\\:]+$/.test(recipient)) {
    return { ok: false, reason: `email recipient must be one plain address (got "${escapeControls(recipient).slice(0, 60)}"); a list of recipients comes from config only; nothing was sent` };
  }
  // Discord ids go into the URL path: only snowflakes (digits), so no rendered value can reach another API path.
  if (kind === 'discord') {
    for (const [what, id] of [['channel', recipient], ['thread_id', threadId]] as const) {
      if (id !== undefined && !/^\d{1,25}$/.test(id)) return { ok: false, reason: `discord ${what} must be a numeric id (got "${id.slice(0, 40)}"); nothing was sent` };
    }
  }
  return { ok: true, value: { ...value, recipient, ...(threadId ? { threadId } : {}), settings, baseUrl: apiBase(kind, settings) } };
}

/** github_comment parameters after template rendering. */
export function checkGithubTarget(extra: Readonly<Partial<DeliverExtra>>): TargetCheck<{ repo: string; prNumber: number }> {
  const repo = text(extra.repo);
  const pr = text(extra.pr_number);
  if (!repoPattern.test(repo)) return { ok: false, reason: `deliver_extra.repo must be owner/name (got "${repo}"); gh was not run` };
  if (!/^[1-9]\d{0,15}$/.test(pr) || !Number.isSafeInteger(Number(pr))) return { ok: false, reason: `deliver_extra.pr_number must be a positive integer written in digits (got "${pr}"); gh was not run` };
  return { ok: true, value: { repo, prNumber: Number(pr) } };
}
