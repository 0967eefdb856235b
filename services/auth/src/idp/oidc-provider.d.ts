/**
 * The part of `oidc-provider` 9 (which ships no type declarations) this repository uses (issue 15).
 * One ambient declaration for every user of the package (the embedded IdP in services/auth/src/idp/,
 * its interaction pages, the brokering tests' stand-in company IdP): extend here, never redeclare.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** A stored model's payload as the adapter sees it. */
  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: unknown;
  }

  /** Persistence of one model kind. */
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  /** The configuration object (loosely typed: see the package's docs/README for every field). */
  export type Configuration = Record<string, unknown>;

  /** An interaction (`interactionDetails`). */
  export interface Interaction {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id?: string; redirect_uri?: string; scope?: string };
    session?: { accountId?: string; uid?: string; cookie?: string };
    grantId?: string;
    lastSubmission?: Record<string, unknown>;
    returnTo: string;
    exp: number;
    result?: Record<string, unknown>;
    save(ttl: number): Promise<string>;
    persist(): Promise<string>;
  }

  /** A grant (`new provider.Grant(...)`). */
  export interface Grant {
    jti?: string;
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(ttl?: number): Promise<string>;
  }

  /** A client as oidc-provider resolves it. */
  export interface Client {
    clientId: string;
    grantTypeAllowed(type: string): boolean;
    [key: string]: unknown;
  }

  /** A token model instance (access or refresh token, code, client credentials). */
  export interface BaseToken {
    jti: string;
    kind: string;
    accountId?: string;
    clientId?: string;
    grantId?: string;
    sessionUid?: string;
    scope?: string;
    expiration: number;
    resourceServer?: unknown;
    save(): Promise<string>;
    [key: string]: unknown;
  }

  /** Token constructors exposed on the provider. */
  export interface TokenClass {
    new (props: Record<string, unknown>): BaseToken;
    find(value: string, opts?: Record<string, unknown>): Promise<BaseToken | undefined>;
  }

  /** The koa context oidc-provider passes to helpers and grant handlers. */
  export interface KoaContextWithOIDC {
    oidc: {
      params?: Record<string, unknown>;
      client?: Client;
      entities: Record<string, unknown>;
      provider: Provider;
      session?: unknown;
      [key: string]: unknown;
    };
    body?: unknown;
    status?: number;
    ip: string;
    req: IncomingMessage;
    res: ServerResponse;
    type?: string;
    res: ServerResponse;
    [key: string]: unknown;
  }

  /** The provider. */
  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    proxy: boolean;
    Grant: { new (props: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    AccessToken: TokenClass;
    RefreshToken: TokenClass;
    ClientCredentials: TokenClass;
    Client: { find(id: string): Promise<Client | undefined> };
    /** Stored interactions by uid (issue 15 item 2: the broker checks the interaction exists). */
    Interaction: { find(uid: string): Promise<Interaction | undefined> };
    ResourceServer: new (identifier: string, info: Record<string, unknown>) => unknown;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, opts?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, opts?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    registerGrantType(name: string, handler: (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>, params?: string | string[] | Set<string>, dupes?: string | string[] | Set<string>): void;
    urlFor(name: string, opt?: Record<string, unknown>): string;
    on(event: string, listener: (...args: unknown[]) => void): this;
    /** Add a koa middleware in front of every route. */
    use(middleware: (ctx: KoaContextWithOIDC & { path: string; body?: unknown; status: number }, next: () => Promise<void>) => Promise<void>): this;
  }

  export const errors: Record<string, new (description?: string, detail?: string) => Error> & {
    InvalidGrant: new (description?: string) => Error;
    InvalidRequest: new (description?: string) => Error;
    UnauthorizedClient: new (description?: string) => Error;
    OIDCProviderError: new (status: number, message: string) => Error & { error_description?: string; statusCode: number };
  };
}
