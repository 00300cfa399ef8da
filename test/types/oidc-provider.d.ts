// The part of oidc-provider (v9, untyped) that the OAuth test peers use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface OidcClient {
    grantTypeAllowed(type: string): boolean;
  }
  interface Interaction {
    uid: string;
    grantId?: string;
    session?: { accountId: string };
    params: Record<string, unknown>;
    prompt: { name: string; details: Record<string, unknown> };
  }
  interface Grant {
    addOIDCScope(scope: string): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }
  interface Configuration {
    clients?: unknown[];
    scopes?: string[];
    features?: Record<string, unknown>;
    issueRefreshToken?(ctx: unknown, client: OidcClient, code: unknown): Promise<boolean>;
    findAccount?(ctx: unknown, sub: string): Promise<{ accountId: string; claims(): Promise<Record<string, unknown>> }>;
    interactions?: { url(ctx: unknown, interaction: Interaction): string };
    ttl?: Record<string, number>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    AccessToken: { find(value: string): Promise<{ isExpired: boolean } | undefined> };
  }
}
