import type { ConfigFile } from '../config/types.js';

export type MessagingKind = 'telegram' | 'discord' | 'slack' | 'signal' | 'sms' | 'email';

/** Settings of each messaging platform as configured (strings already `${VAR}`-interpolated). */
export type PlatformSettings = Partial<Record<MessagingKind, Record<string, unknown>>>;

export const defaultApiBase: Partial<Record<MessagingKind, string>> = {
  telegram: 'https://api.telegram.org',
  discord: 'https://discord.com',
  slack: 'https://slack.com',
  sms: 'https://api.twilio.com',
};

/** What each platform needs before anything can be sent. */
export const requiredSettings: Record<MessagingKind, string[]> = {
  telegram: ['bot_token'],
  discord: ['bot_token'],
  slack: ['bot_token'],
  signal: ['api_url', 'number'],
  sms: ['account_sid', 'auth_token', 'from'],
  email: ['host', 'from'],
};

export function platformSettings(config: ConfigFile | undefined): PlatformSettings {
  const platforms = config?.platforms ?? {};
  const out: PlatformSettings = {};
  for (const kind of Object.keys(requiredSettings) as MessagingKind[]) {
    const settings = platforms[kind];
    if (settings) out[kind] = settings;
  }
  return out;
}

export function setting(settings: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = settings?.[key];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function apiBase(kind: MessagingKind, settings: Record<string, unknown> | undefined): string {
  return (setting(settings, 'api_base_url') ?? defaultApiBase[kind] ?? '').replace(/\/+$/, '');
}
