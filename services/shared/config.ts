/**
 * Configuration slices handed to each service's `start(cfg)`.
 *
 * Only `main/config` reads the environment; it builds these plain, structured-clonable objects
 * (they cross into worker threads) and freezes them. Services never touch `process.env`.
 */
import type { ServiceName, UpstreamName } from './services.js';
import type { ObjectStoreSettings } from './objects/settings.js';
import type { PgSettings } from './db/pg/settings.js';

/** Deployment environment, from SVC_ENV / APP_ENV / ENVIRONMENT. */
export type Environment = 'development' | 'test' | 'production';

/** Settings every service receives. */
export interface CommonServiceConfig {
  service: ServiceName;
  /** Bind address, 127.0.0.1 unless SVC_BIND_HOST says otherwise. */
  host: string;
  /** HTTP port; 0 asks the OS for a free one. */
  port: number;
  env: Environment;
  /** Root data directory (SVC_DATA_DIR). */
  dataDir: string;
  /** `<dataDir>/db`: one `<store>.sqlite` per store. */
  dbDir: string;
  /** `<dataDir>/objects`: content-addressed blobs. */
  objectsDir: string;
  /** `<dataDir>/logs`. */
  logDir: string;
  /** Absolute path of the repository's `migrations/` folder. */
  migrationsDir: string;
  /** pino level for the service's log file. */
  logLevel: string;
  /** The pinned tenant (spec: tenancy.single_tenant_id). */
  tenantId: string;
  /** Public URL of the gateway, e.g. http://127.0.0.1:8080 (issuer strings derive from it). */
  publicUrl: string;
  /** HMAC keys for X-Svc-Principal, newest first. */
  principalKeys: string[];
  /** HMAC keys for X-Svc-Cap-Token, newest first. */
  capTokenKeys: string[];
  /** False only in dev mode with auth disabled (anonymous principal). */
  authEnabled: boolean;
  /** Base URLs (http://host:port) of every service, for service-to-service calls. */
  serviceUrls: Record<ServiceName, string>;
  /**
   * Service-to-service tokens (spec "Service-to-service"; issue 15 item 4): this service's own client
   * and how it verifies its callers. Absent: no service tokens (enforcement off, outbound hops carry none).
   */
  internalAuth?: InternalAuthConfig;
  /** Egress control (issue 19 item 6): the forward proxy outbound calls of supplied URLs go through. Absent = off. */
  egress?: EgressSlice;
  /**
   * This service's gRPC port (issue 20 item 2; HTTP port + 1000 by default, 0 = ephemeral), or
   * null/absent: no gRPC server (no gRPC port in the spec, or `SVC_<SERVICE>_GRPC=false`).
   */
  grpcPort?: number | null;
  /** `host:port` of each service's gRPC server (only services that run one), for gRPC clients. */
  grpcUrls?: Partial<Record<ServiceName, string>>;
  /** USE_GRPC (default true): the gateway and the turn-event publishers use gRPC where a peer has it (issue 20 item 3). */
  useGrpc?: boolean;
  /** REDIS_URL (issue 21 item 3): shared approval wake-ups and notification streams; absent/null = in-process. */
  redisUrl?: string | null;
  /** SVC_OBJECT_STORE_URL (issue 21 item 4): an S3-compatible bucket; absent/null = `objectsDir`. */
  objectStore?: ObjectStoreSettings | null;
  /**
   * SVC_DATABASE_URL / SVC_<SERVICE>_DATABASE_URL (issue 21 item 1): this service's PostgreSQL
   * schema; absent/null = SQLite files under `dbDir` (the desktop default).
   */
  database?: PgSettings | null;
}

/** `SVC_EGRESS_POLICY` (issue 19 item 6): off (default), observe (allow all, log), enforce (allowlist only). */
export type EgressPolicy = 'off' | 'observe' | 'enforce';

/**
 * The egress slice (issue 19 item 6; main/config/egress.ts builds it, main/egress/squid.ts runs Squid).
 * `state`: `off` (policy off), `running` (proxyUrl set), `unavailable` (Squid could not run: `enforce`
 * fails closed, `reason` says why).
 */
export interface EgressSlice {
  policy: EgressPolicy;
  state: 'off' | 'running' | 'unavailable';
  reason: string | null;
  /** `http://127.0.0.1:<port>` of Squid when running, else null. */
  proxyUrl: string | null;
  squidBin: string;
  /** `<dataDir>/egress`. */
  dir: string;
  confPath: string;
  /** The allowlist include Squid reads (written by the inference router). */
  allowlistPath: string;
  /** Squid's access log (tailed by the audit shipper). */
  accessLogPath: string;
  pidPath: string;
}

/**
 * One service's service-token settings (spec "Service-to-service"; issue 15 item 4). The token is a
 * JWT from the embedded IdP's `client_credentials` grant; receivers check signature (realm JWKS),
 * `iss`, `aud`, `client_id` and the optional allow-list.
 */
export interface InternalAuthConfig {
  /** This service's client id, `service-<name>` (INTERNAL_AUTH_CLIENT_ID). */
  clientId: string;
  /** Its client secret (INTERNAL_AUTH_CLIENT_SECRET / _FILE, else generated on first start). */
  clientSecret: string;
  /** Token endpoint (INTERNAL_AUTH_TOKEN_URL; default auth's internal `/idp/realms/svc/protocol/openid-connect/token`). */
  tokenUrl: string;
  /** Required `iss`: the realm issuer `{publicUrl}/idp/realms/{INTERNAL_AUTH_REALM}`. */
  issuer: string;
  /** Where the realm JWKS is fetched from (auth's internal `.../protocol/openid-connect/certs`). */
  jwksUrl: string;
  /** Required `aud` (INTERNAL_AUTH_AUDIENCE, default `svc-internal`). */
  audience: string;
  /** Callers (client ids) accepted, or null = any `service-*` client of the realm (INTERNAL_AUTH_ALLOWED_CLIENTS). */
  allowedClients: string[] | null;
  /** Optional introspection endpoint (INTERNAL_AUTH_INTROSPECTION_URL), null = local JWT checks only. */
  introspectionUrl: string | null;
}

/** The gateway's password-grant client at the embedded IdP (issue 15 item 1). */
export interface WebPasswordClientConfig {
  /** IDP_WEB_PASSWORD_CLIENT_ID (default `svc-web-password`). */
  clientId: string;
  /** Its secret (generated on first start, or derived from INTERNAL_AUTH_CLIENT_SECRET). */
  clientSecret: string;
  /** The realm's token endpoint on auth's internal URL (`{auth}/idp/realms/svc/protocol/openid-connect/token`). */
  tokenUrl: string;
}

/** The embedded OpenID Connect provider of the auth service (issue 15 item 1). */
export interface EmbeddedIdpConfig {
  /** `{publicUrl}/idp/realms/svc`. */
  issuer: string;
  /** Client id of the confidential password-grant client (IDP_WEB_PASSWORD_CLIENT_ID, default `svc-web-password`). */
  webPasswordClientId: string;
  /** Confidential clients and their secrets: `svc-web-password` and every `service-<name>`. */
  clients: Array<{ clientId: string; clientSecret: string }>;
  /** Redirect URIs registered for `svc-frontend` (`{publicUrl}/login/callback`). */
  frontendRedirectUris: string[];
}

/** A trusted bearer-token issuer (spec: "Bearer tokens and trusted issuers"). */
export interface TrustedIssuer {
  /** Exact `iss` string (a public URL). */
  issuer: string;
  /** Where its JWKS is fetched from (may be an internal address). */
  jwksUrl: string;
  /** JWS algorithms accepted from this issuer. */
  algorithms: string[];
}

/** Gateway slice (spec: "What the service does" 1-6, "Limits"). */
export interface GatewayConfig extends CommonServiceConfig {
  service: 'gateway';
  /** SVC_UPDATE_MANIFEST_URL: the connected update check of `GET /v1/admin/update` (issue 19 item 4), or null. */
  updateManifestUrl?: string | null;
  /** services.gateway.max_request_body_bytes (SVC_GATEWAY_MAX_REQUEST_BODY_BYTES). */
  maxRequestBodyBytes: number;
  /**
   * Settings of other services that move their request body limits, so the gateway refuses what
   * they would (issue 11 item 4; services/gateway/src/domain/body-limits.ts). Default: their defaults.
   */
  upstreamBodySettings?: { guardrailMaxBodyBytes: number; knowledgeMaxUploadBytes: number };
  /** Requests per minute per client IP (SVC_RATE_LIMIT_IP_PER_MINUTE). */
  rateLimitIpPerMinute: number;
  /** Requests per minute per tenant (SVC_RATE_LIMIT_TENANT_PER_MINUTE). */
  rateLimitTenantPerMinute: number;
  /** Shared limiter store when set. */
  redisUrl: string | null;
  trustedIssuers: TrustedIssuer[];
  /** Required `aud` of bearer tokens: `svc-frontend`. */
  audience: string;
  /** Lower-cased emails promoted to admin (SVC_ADMIN_EMAIL_ALLOWLIST). */
  adminEmailAllowlist: string[];
  /** Group -> roles added (SVC_GROUP_ROLE_MAP `GroupA:admin,GroupB:user`). */
  groupRoleMap: Record<string, string[]>;
  /** Take the client IP from X-Forwarded-For (SVC_TRUST_PROXY). */
  trustProxy: boolean;
  /**
   * Lower-cased host names the gateway answers besides loopback names, the public URL's host and
   * the bind address (SVC_ALLOWED_HOSTS, comma-separated): any other `Host` is refused, the shape
   * of a DNS-rebinding attack on a loopback app (issue 11, item 9).
   */
  allowedHosts: string[];
  /**
   * SVC_GATEWAY_INSTANCE_URL: where the other gateways of a scaled-out deployment reach this one
   * (issue 21: an AG-UI resume reaching another gateway is forwarded to the one holding the paused
   * run); null = `http://<bind host>:<port>` (loopback on the desktop).
   */
  instanceUrl?: string | null;
  /** Upper bound of cached token validations. */
  tokenCacheMax: number;
  /**
   * The embedded IdP's confidential client `svc-web-password` (issue 15 item 1): `POST /v1/auth/login`
   * signs local accounts in by its `password` grant server-side, `POST /v1/auth/refresh` refreshes its
   * tokens. Absent or null: both go to auth's own routes (issuer `{publicUrl}/auth`), as before.
   */
  webPasswordClient?: WebPasswordClientConfig | null;
  /** Built renderer served at `/`, when present. */
  rendererDir: string | null;
  /**
   * HTTPS on the LAN (issue 14 item 7): set when `SVC_BIND_HOST` is not loopback, null = plain HTTP
   * (loopback, as before). `certFile`/`keyFile`: the operator's PEM files (SVC_TLS_CERT_FILE,
   * SVC_TLS_KEY_FILE), or null for the self-signed pair generated under `<dataDir>/tls/`, whose SAN
   * lists `hosts` (the LAN addresses and the public URL's host).
   */
  tls?: GatewayTlsConfig | null;
  /**
   * Backups (issue 19 item 2): `dir` = SVC_BACKUP_DIR (default `<dataDir>-backups`, a sibling of the
   * data directory); `auditKeys` = the audit signing keys (active first), to verify a restored chain.
   */
  backup?: { dir: string; auditKeys: Array<{ version: string; key: string }>; /** The schedule's sealing key may use the OS keychain (issue 19). */ scheduleKeychain?: boolean } | null;
}

/** The gateway's TLS settings (services/shared/identity/tls-cert.ts). */
export interface GatewayTlsConfig {
  certFile: string | null;
  keyFile: string | null;
  hosts: string[];
}

/** Auth slice: local accounts and the embedded issuer `{publicUrl}/auth`. */
export interface AuthConfig extends CommonServiceConfig {
  service: 'auth';
  /** `{publicUrl}/auth`. */
  issuer: string;
  audience: string;
  passwordLoginEnabled: boolean;
  bootstrapAdminEmail: string | null;
  bootstrapAdminPassword: string | null;
  /** Access token lifetime, seconds. */
  accessTokenTtlSeconds: number;
  /** Refresh token lifetime, seconds. */
  refreshTokenTtlSeconds: number;
  /**
   * Failed logins of one account from one client address before delays start (1 s, doubling up to
   * the window; issue 11 item 2: failures from one address never delay another).
   */
  loginMaxFailuresPerAccount: number;
  /** Failed logins allowed per client address across accounts per window before 429. */
  loginMaxFailuresPerIp: number;
  /** Throttle window, seconds: the per-address window and the largest login delay. */
  loginThrottleWindowSeconds: number;
  /** Sanitised external identity providers for GET /v1/auth/idps. */
  externalIdps: Array<{ name: string; issuer: string }>;
  /** scrypt cost parameter N (power of two). */
  scryptN: number;
  /** Default of the second-factor policy for non-admin users (SVC_2FA_ENFORCED; an admin's setting overrides it; issue 14). Default false. */
  secondFactorEnforced?: boolean;
  /** Lifetime of a login challenge, seconds (SVC_2FA_CHALLENGE_TTL_SECONDS; issue 14). Default 120. */
  challengeTtlSeconds?: number;
  /**
   * Issue 15 item 3: whole-call timeout (ms) of auth's call to dirauth when directory sign-in is on
   * (DIRAUTH_LDAP_URL set); absent or null: off, logins are local only.
   */
  directoryTimeoutMs?: number | null;
  /** Group -> roles (SVC_GROUP_ROLE_MAP) given to directory users at sign-in (issue 15 item 3). */
  groupRoleMap?: Record<string, string[]>;
  /** The embedded OpenID Connect provider (issue 15 item 1); absent: not mounted. */
  idp?: EmbeddedIdpConfig;
}

/** Audit slice (spec: "Audit signing keys", "Limits"). */
export interface AuditConfig extends CommonServiceConfig {
  service: 'audit';
  signingKey: string;
  keyVersion: string;
  previousSigningKey: string | null;
  previousKeyVersion: string | null;
  /** Older keys kept for verification only (issue 19 item 3: every retired key verifies), newest first. */
  retiredKeys?: Array<{ version: string; key: string }>;
  sealIntervalSeconds: number;
  sealWatermarkSeconds: number;
  sealBatchLimit: number;
  /** Issue 22 item 3: seconds between checkpoint passes (a checkpoint is signed when the chain head moved); default 300. */
  checkpointIntervalSeconds?: number;
}

/** Any other service: only the common settings for now. */
export interface PlainServiceConfig extends CommonServiceConfig {
  service: Exclude<ServiceName, 'gateway' | 'auth' | 'audit'>;
}

/** The union handed to `start(cfg)` of each service. */
export type AnyServiceConfig = GatewayConfig | AuthConfig | AuditConfig | PlainServiceConfig;

/** Upstream service URL map without the gateway. */
export type UpstreamUrls = Record<UpstreamName, string>;
