/** The shape of config.json as config.schema.json describes it (keys as operators write them). */
export type SecretValue = string | string[];

export interface RouteConfig {
  secret?: SecretValue;
  events?: string[];
  prompt?: string;
  skills?: string[];
  deliver?: string;
  deliver_extra?: Record<string, string | number | boolean>;
  rate_limit?: number;
  description?: string;
}

export interface WebhookPlatformConfig {
  enabled?: boolean;
  extra?: {
    host?: string;
    port?: number;
    secret?: SecretValue;
    rate_limit?: number;
    max_body_bytes?: number;
    idempotency_ttl_seconds?: number;
    max_concurrent_runs?: number;
    metrics?: boolean;
    routes?: Record<string, RouteConfig>;
  };
}

export type McpServerConfig = Record<string, unknown> & {
  command?: string;
  url?: string;
  enabled?: boolean;
};

export interface ConfigFile {
  $schema?: string;
  timezone?: string;
  model?: { provider?: 'dry-run' | 'openai-compatible' | 'openai' | 'anthropic'; base_url?: string; name?: string; api_key?: string };
  agent?: { max_steps?: number; run_timeout_seconds?: number; workdir?: string; terminal?: { approval?: 'never' | 'dangerous' | 'always'; timeout_seconds?: number } };
  approvals?: { timeout_seconds?: number; headless?: 'deny' | 'wait' };
  mcp_servers?: Record<string, McpServerConfig>;
  platforms?: { webhook?: WebhookPlatformConfig } & Partial<Record<'telegram' | 'discord' | 'slack' | 'signal' | 'sms' | 'email', Record<string, unknown>>>;
  cron?: { script_timeout_seconds?: number };
  logging?: { level?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' };
  control?: { host?: string; port?: number; token_env?: string };
  store?: { url?: string; heartbeat_seconds?: number };
}
