/**
 * The ONE place that reads `process.env` and the data directory (DESIGN.md layout: main/config).
 *
 * `loadStackConfig(env)` validates the environment, applies the spec's startup guards
 * ("Authentication" > "Startup guards"), resolves first-start secrets, and returns a frozen
 * `StackConfig`. `serviceConfigs(stack, ports)` then cuts the per-service slices once every port is
 * known (ports may be 0 = ephemeral, resolved by the supervisor).
 *
 * Errors: `ConfigError` with a message that says which variable to set. The parsing helpers
 * (`str`, `secret`, `int`, `bool`, `list`, ...) live in `./env.ts` and are re-exported here.
 */
import { readUpdateSettings, type UpdateSettings } from './update.js';
export { defaultDataDir, repoRoot } from './paths.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultDataDir, repoRoot } from './paths.js';
import {
  SERVICE_NAMES, DEFAULT_PORTS, portEnvName, type ServiceName,
} from '../../services/shared/services.js';
import { ACCOUNT_ROLES, isAccountRole } from '../../services/shared/identity/principal-types.js';
import { ConfigError, bool, httpUrlOrNull, int, isPlaceholder, list, secret, str, type Env } from './env.js';
import { readServiceSettings, type ServiceSettings } from './services/index.js';
import { networkPlan, tlsFiles } from './lan.js';
import { applyRotatedKeys, generatedSecrets } from './key-store.js';
import { egressSlice, readEgressSettings, type EgressSettings } from './egress.js';
import { backupDirOf, backupKeychainWanted } from './backup.js';
import { grpcFields, readGrpcSettings, type GrpcSettings } from './grpc.js';
import { readScaleOut, type ScaleOutSettings } from './scale-out.js';
import { idpSlice, internalAuthSlice, parseIssuers, readInternalAuth, trustedIssuers, webPasswordClient, type InternalAuthStack } from './internal-auth.js';
import type { ObjectStoreSettings } from '../../services/shared/objects/settings.js';
import { pgSettingsFor } from '../../services/shared/db/pg/settings.js';
import type {
  AnyServiceConfig, AuditConfig, AuthConfig, CommonServiceConfig, Environment, GatewayConfig, PlainServiceConfig, TrustedIssuer,
} from '../../services/shared/config.js';

export { ConfigError, bool, fraction, int, isPlaceholder, list, secret, str, type Env } from './env.js';
export type { ServiceSettings } from './services/index.js';

/** Everything the supervisor needs, before ports are resolved. */
export interface StackConfig {
  env: Environment;
  host: string;
  dataDir: string;
  /** SVC_BACKUP_DIR, default `<dataDir>-backups` (issue 19 item 2; ./backup.ts). */
  backupDir: string;
  /** Whether the backup schedule's sealing key may live in the OS keychain (not with SVC_SECRET_STORE=file; ./backup.ts). */
  backupKeychain: boolean;
  migrationsDir: string;
  rendererDir: string | null;
  logLevel: string;
  /** Offline updates and the manifest check (issue 19 item 4; main/config/update.ts). */
  update: UpdateSettings;
  /** Requested ports; 0 = pick a free one. */
  ports: Record<ServiceName, number>;
  /** USE_GRPC and the gRPC servers (issue 20; ./grpc.ts). */
  grpc: GrpcSettings;
  /** Egress control (issue 19 item 6; ./egress.ts). */
  egress: EgressSettings;
  /**
   * SVC_PUBLIC_URL, or null to derive it: `http://{host}:{gateway port}` on loopback,
   * `https://{LAN address}:{gateway port}` for any other bind host (issue 14 item 7).
   */
  publicUrl: string | null;
  tenantId: string;
  authEnabled: boolean;
  passwordLoginEnabled: boolean;
  principalKeys: string[];
  capTokenKeys: string[];
  gateway: {
    maxRequestBodyBytes: number;
    rateLimitIpPerMinute: number;
    rateLimitTenantPerMinute: number;
    redisUrl: string | null;
    externalIssuers: TrustedIssuer[];
    adminEmailAllowlist: string[];
    groupRoleMap: Record<string, string[]>;
    trustProxy: boolean;
    allowedHosts: string[];
    /** SVC_GATEWAY_INSTANCE_URL: where the other gateways reach this one (issue 21: AG-UI resumes forwarded to the gateway holding the paused run). */
    instanceUrl: string | null;
    /** The operator's TLS certificate and key (SVC_TLS_CERT_FILE, SVC_TLS_KEY_FILE), used off loopback. */
    tlsCertFile: string | null;
    tlsKeyFile: string | null;
  };
  auth: {
    bootstrapAdminEmail: string | null;
    bootstrapAdminPassword: string | null;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    loginMaxFailuresPerAccount: number;
    loginMaxFailuresPerIp: number;
    loginThrottleWindowSeconds: number;
    scryptN: number;
    secondFactorEnforced: boolean;
    challengeTtlSeconds: number;
  };
  audit: {
    signingKey: string;
    keyVersion: string;
    previousSigningKey: string | null;
    previousKeyVersion: string | null;
    /** Older audit keys kept for verification only (issue 19 item 3), newest first. */
    retiredKeys: Array<{ version: string; key: string }>;
    sealIntervalSeconds: number;
    sealWatermarkSeconds: number;
    sealBatchLimit: number;
    /** Issue 22 item 3: seconds between checkpoint passes (AUDIT_CHECKPOINT_INTERVAL_SECONDS, default 300). */
    checkpointIntervalSeconds: number;
  };
  /** Per-service settings (main/config/services/*.ts, typed by each service's contracts), merged into their slices. */
  extras: ServiceSettings;
  /** Service-to-service tokens and the IdP's confidential clients (issue 15 item 4; ./internal-auth.ts). */
  internalAuth: InternalAuthStack;
  /** Peer URLs, shared state and the object store of a scaled-out deployment (issue 21; ./scale-out.ts). */
  scaleOut: ScaleOutSettings;
  supervisor: {
    readyTimeoutMs: number;
    shutdownTimeoutMs: number;
    maxRestartBackoffMs: number;
  };
}

/**
 * Parse `SVC_GROUP_ROLE_MAP`, `GroupA:admin,GroupB:user` (roles may repeat per group; spec "Roles
 * and groups"). Groups map only onto account roles (`ACCOUNT_ROLES`: user, admin, tenant_admin,
 * platform_admin; issue 11 item 1): `service-account` or any other role is a `ConfigError`.
 */
export function parseGroupRoleMap(raw: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of list(raw)) {
    const i = pair.lastIndexOf(':');
    if (i <= 0 || i === pair.length - 1) throw new ConfigError(`SVC_GROUP_ROLE_MAP entries must be Group:role, got "${pair}"`);
    const group = pair.slice(0, i).trim();
    const role = pair.slice(i + 1).trim();
    if (!isAccountRole(role)) {
      throw new ConfigError(`SVC_GROUP_ROLE_MAP may map groups only onto ${ACCOUNT_ROLES.join(', ')}; got "${role}" for group "${group}"`);
    }
    const roles = (out[group] ??= []);
    if (!roles.includes(role)) roles.push(role);
  }
  return out;
}

function environment(env: Env): Environment {
  const raw = (str(env, 'SVC_ENV') || str(env, 'APP_ENV') || str(env, 'ENVIRONMENT') || 'development').toLowerCase();
  if (raw === 'prod' || raw === 'production') return 'production';
  if (raw === 'test') return 'test';
  return 'development';
}

/**
 * Validate the environment and resolve the stack configuration.
 * @throws ConfigError naming the variable to set.
 */
export function loadStackConfig(env: Env = process.env): Readonly<StackConfig> {
  const envName = environment(env);
  const production = envName === 'production';
  const root = repoRoot();
  const dataDir = resolve(str(env, 'SVC_DATA_DIR') || defaultDataDir(env));
  const gen = generatedSecrets(dataDir);

  const authEnabled = bool(env, 'SVC_AUTH_ENABLED', true);
  if (!authEnabled && production && !bool(env, 'SVC_ALLOW_AUTH_DISABLED', false)) {
    throw new ConfigError('auth is disabled (SVC_AUTH_ENABLED=false) in a production environment; enable auth, or set SVC_ALLOW_AUTH_DISABLED=true to accept the risk');
  }
  const passwordLoginEnabled = bool(env, 'SVC_PASSWORD_LOGIN_ENABLED', true);

  const keys = (name: string): string[] => {
    const raw = secret(env, name);
    if (raw === undefined && !production) return [gen.get(name)];
    const parsed = list(raw);
    if (parsed.length === 0) {
      if (authEnabled) throw new ConfigError(`auth is enabled but ${name} is empty; set ${name} to comma-separated HMAC keys, newest first (each at least 32 characters)`);
      return [gen.get(name)];
    }
    for (const k of parsed) {
      if (k.length < 32 || isPlaceholder(k)) throw new ConfigError(`${name} holds a key that is shorter than 32 characters or a placeholder; use random keys`);
    }
    return parsed;
  };
  const envPrincipalKeys = keys('SVC_PRINCIPAL_KEYS');
  const envCapTokenKeys = keys('SVC_CAPTOKEN_KEYS');

  let signingKey = secret(env, 'AUDIT_SIGNING_KEY');
  if (signingKey === undefined && !production) signingKey = gen.get('AUDIT_SIGNING_KEY');
  if (!signingKey) throw new ConfigError('AUDIT_SIGNING_KEY is required; set it to a random value of at least 32 characters');
  if (signingKey.length < 32) throw new ConfigError('AUDIT_SIGNING_KEY must be at least 32 characters');
  if (isPlaceholder(signingKey)) throw new ConfigError('AUDIT_SIGNING_KEY is a placeholder; set it to a random value of at least 32 characters');
  const previousSigningKey = secret(env, 'AUDIT_SIGNING_KEY_PREVIOUS') || null;
  const previousKeyVersion = secret(env, 'AUDIT_KEY_VERSION_PREVIOUS') || null;
  if (previousSigningKey && !previousKeyVersion) throw new ConfigError('AUDIT_SIGNING_KEY_PREVIOUS is set; set AUDIT_KEY_VERSION_PREVIOUS to its label too');
  const keyVersion = secret(env, 'AUDIT_KEY_VERSION') || 'v1';
  if (previousKeyVersion && previousKeyVersion === keyVersion) throw new ConfigError('AUDIT_KEY_VERSION_PREVIOUS must differ from AUDIT_KEY_VERSION');
  // Issue 19 item 3: keys rotated through /v1/admin/secrets (secrets/rotated-keys.json) win over the environment.
  const rotated = applyRotatedKeys(dataDir, { principalKeys: envPrincipalKeys, capTokenKeys: envCapTokenKeys, audit: { signingKey, keyVersion, previousSigningKey, previousKeyVersion } });
  const { principalKeys, capTokenKeys } = rotated;

  const ports = {} as Record<ServiceName, number>;
  for (const name of SERVICE_NAMES) ports[name] = int(env, portEnvName(name), DEFAULT_PORTS[name], 0, 65535);

  const bootstrapAdminEmail = str(env, 'SVC_BOOTSTRAP_ADMIN_EMAIL') || null;
  const bootstrapAdminPassword = secret(env, 'SVC_BOOTSTRAP_ADMIN_PASSWORD') || null;
  if (bootstrapAdminEmail && !bootstrapAdminPassword) throw new ConfigError('SVC_BOOTSTRAP_ADMIN_EMAIL is set; set SVC_BOOTSTRAP_ADMIN_PASSWORD (or _FILE) too');
  if (bootstrapAdminPassword && bootstrapAdminPassword.length < 8) throw new ConfigError('SVC_BOOTSTRAP_ADMIN_PASSWORD must be at least 8 characters');

  const scryptN = int(env, 'SVC_SCRYPT_N', 32768, 1024, 1 << 20);
  if ((scryptN & (scryptN - 1)) !== 0) throw new ConfigError('SVC_SCRYPT_N must be a power of two');

  const extras = readServiceSettings(env, { dataDir, repoRoot: root, production });
  const internalAuth = readInternalAuth(env, { production, passwordLoginEnabled, generated: gen });

  const rendererDir = join(root, 'dist', 'renderer');
  const cfg: StackConfig = {
    env: envName,
    host: str(env, 'SVC_BIND_HOST') || '127.0.0.1',
    dataDir,
    backupDir: backupDirOf(env, dataDir),
    backupKeychain: backupKeychainWanted(env),
    // A packaged app carries migrations as an extra resource outside app.asar (set by the shell).
    migrationsDir: str(env, 'SVC_MIGRATIONS_DIR') || join(root, 'migrations'),
    rendererDir: existsSync(join(rendererDir, 'index.html')) ? rendererDir : null,
    logLevel: str(env, 'SVC_LOG_LEVEL') || 'info',
    update: readUpdateSettings(env, root),
    ports,
    grpc: readGrpcSettings(env),
    egress: readEgressSettings(env, dataDir),
    publicUrl: (str(env, 'SVC_PUBLIC_URL') || '').replace(/\/+$/, '') || null,
    tenantId: str(env, 'SVC_TENANT_ID') || 'default',
    authEnabled,
    passwordLoginEnabled,
    principalKeys,
    capTokenKeys,
    gateway: {
      maxRequestBodyBytes: int(env, 'SVC_GATEWAY_MAX_REQUEST_BODY_BYTES', 26_214_400, 1024, 1 << 30),
      rateLimitIpPerMinute: int(env, 'SVC_RATE_LIMIT_IP_PER_MINUTE', 600, 1, 10_000_000),
      rateLimitTenantPerMinute: int(env, 'SVC_RATE_LIMIT_TENANT_PER_MINUTE', 3000, 1, 10_000_000),
      redisUrl: str(env, 'REDIS_URL') || null,
      externalIssuers: parseIssuers(env),
      adminEmailAllowlist: list(str(env, 'SVC_ADMIN_EMAIL_ALLOWLIST')).map((e) => e.toLowerCase()),
      groupRoleMap: parseGroupRoleMap(str(env, 'SVC_GROUP_ROLE_MAP')),
      trustProxy: bool(env, 'SVC_TRUST_PROXY', false),
      allowedHosts: list(str(env, 'SVC_ALLOWED_HOSTS')).map((h) => h.toLowerCase()),
      instanceUrl: httpUrlOrNull(env, 'SVC_GATEWAY_INSTANCE_URL', 'http://gateway-2:8080'),
      ...tlsFiles(env),
    },
    auth: {
      bootstrapAdminEmail,
      bootstrapAdminPassword,
      accessTokenTtlSeconds: int(env, 'SVC_ACCESS_TOKEN_TTL_SECONDS', 900, 30, 86_400),
      refreshTokenTtlSeconds: int(env, 'SVC_REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 60, 365 * 86_400),
      loginMaxFailuresPerAccount: int(env, 'SVC_LOGIN_MAX_FAILURES_PER_ACCOUNT', 5, 1, 10_000),
      loginMaxFailuresPerIp: int(env, 'SVC_LOGIN_MAX_FAILURES_PER_IP', 20, 1, 100_000),
      loginThrottleWindowSeconds: int(env, 'SVC_LOGIN_THROTTLE_WINDOW_SECONDS', 900, 1, 86_400),
      scryptN,
      // Issue 14: the phone second factor's policy default and challenge lifetime.
      secondFactorEnforced: bool(env, 'SVC_2FA_ENFORCED', false),
      challengeTtlSeconds: int(env, 'SVC_2FA_CHALLENGE_TTL_SECONDS', 120, 10, 3600),
    },
    audit: {
      ...rotated.audit,
      sealIntervalSeconds: int(env, 'TURN_SEAL_INTERVAL_SECONDS', 10, 1, 3600),
      sealWatermarkSeconds: int(env, 'TURN_SEAL_WATERMARK_SECONDS', 300, 1, 86_400),
      sealBatchLimit: int(env, 'TURN_SEAL_BATCH_LIMIT', 100, 1, 100_000),
      checkpointIntervalSeconds: int(env, 'AUDIT_CHECKPOINT_INTERVAL_SECONDS', 300, 1, 86_400),
    },
    extras,
    internalAuth,
    scaleOut: readScaleOut(env),
    supervisor: {
      readyTimeoutMs: int(env, 'SVC_READY_TIMEOUT_MS', 30_000, 100, 600_000),
      shutdownTimeoutMs: int(env, 'SVC_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
      maxRestartBackoffMs: int(env, 'SVC_MAX_RESTART_BACKOFF_MS', 30_000, 10, 600_000),
    },
  };
  return deepFreeze(cfg);
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/**
 * The slice of every service: gateway, auth and audit have their own; each other service gets the
 * common settings plus its typed settings (`ServiceSettings`, from its `contracts.ts`).
 */
export type ServiceConfigs = { gateway: GatewayConfig; auth: AuthConfig; audit: AuditConfig }
  & { [K in keyof ServiceSettings]: CommonServiceConfig & ServiceSettings[K] & { service: K } };

/**
 * Cut the per-service configuration slices once every port is known.
 * @param ports actual ports (no zeros).
 */
export function serviceConfigs(stack: Readonly<StackConfig>, ports: Record<ServiceName, number>, egressRun: { proxyPort: number | null; reason: string | null } = { proxyPort: null, reason: null }, peerUrls: Partial<Record<ServiceName, string>> = {}, grpcPorts?: Partial<Record<ServiceName, number>>): ServiceConfigs {
  // Issue 20: gRPC ports as the supervisor resolved them (default: HTTP port + 1000).
  const gports = grpcPorts ?? Object.fromEntries(stack.grpc.enabled.map((n) => [n, ports[n] + 1000]));
  const egress = egressSlice(stack.egress, egressRun);
  const { lan, internalHost, serviceUrls, publicUrl, addresses } = networkPlan(stack.host, stack.publicUrl, ports);
  // Issue 21 item 2: services another process runs (`--service`, main/cli.ts) are called where SVC_<SERVICE>_URL says.
  Object.assign(serviceUrls, peerUrls);
  const common = (service: ServiceName): CommonServiceConfig => ({
    service,
    host: service === 'gateway' ? stack.host : internalHost,
    port: ports[service],
    env: stack.env,
    dataDir: stack.dataDir,
    dbDir: join(stack.dataDir, 'db'),
    objectsDir: join(stack.dataDir, 'objects'),
    logDir: join(stack.dataDir, 'logs'),
    migrationsDir: stack.migrationsDir,
    logLevel: stack.logLevel,
    tenantId: stack.tenantId,
    publicUrl,
    principalKeys: [...stack.principalKeys],
    capTokenKeys: [...stack.capTokenKeys],
    authEnabled: stack.authEnabled,
    serviceUrls,
    internalAuth: internalAuthSlice(stack.internalAuth, service, publicUrl, serviceUrls.auth),
    egress: { ...egress },
    ...grpcFields(stack.grpc, service, internalHost, gports, peerUrls),
    // Issue 21 items 3, 4: shared state and the object store of a scaled-out deployment.
    redisUrl: stack.scaleOut.redisUrl,
    objectStore: stack.scaleOut.objectStore ? JSON.parse(JSON.stringify(stack.scaleOut.objectStore)) as ObjectStoreSettings : null,
    // Issue 21 item 1: this service's PostgreSQL schema when SVC_DATABASE_URL (or its own) is set.
    database: pgSettingsFor(stack.scaleOut.databaseUrls, service),
  });
  // Issue 15: the embedded IdP's slice once; the realm's internal URL (auth's address + the issuer's path).
  const idp = idpSlice(stack.internalAuth, publicUrl);
  const realmUrl = `${serviceUrls.auth}${idp.issuer.slice(publicUrl.length)}`;
  const out = {} as Record<ServiceName, AnyServiceConfig>;
  for (const name of SERVICE_NAMES) {
    if (name === 'gateway') {
      const { externalIssuers, tlsCertFile, tlsKeyFile, ...gw } = stack.gateway;
      const g: GatewayConfig = {
        ...common('gateway'),
        service: 'gateway',
        ...gw,
        trustedIssuers: trustedIssuers(publicUrl, serviceUrls, { issuer: idp.issuer, url: realmUrl }, externalIssuers),
        audience: 'svc-frontend',
        adminEmailAllowlist: [...stack.gateway.adminEmailAllowlist],
        allowedHosts: [...stack.gateway.allowedHosts],
        groupRoleMap: JSON.parse(JSON.stringify(stack.gateway.groupRoleMap)) as Record<string, string[]>,
        tokenCacheMax: 50_000,
        // Issue 15 item 1: POST /v1/auth/login signs local accounts in at the realm through svc-web-password.
        webPasswordClient: webPasswordClient(stack.internalAuth, realmUrl),
        rendererDir: stack.rendererDir,
        backup: {
          dir: stack.backupDir,
          scheduleKeychain: stack.backupKeychain,
          auditKeys: [{ version: stack.audit.keyVersion, key: stack.audit.signingKey },
            ...(stack.audit.previousSigningKey && stack.audit.previousKeyVersion ? [{ version: stack.audit.previousKeyVersion, key: stack.audit.previousSigningKey }] : []),
            // Issue 19 item 3: keys retired through /v1/admin/secrets verify restored rows too.
            ...stack.audit.retiredKeys.map((r) => ({ version: r.version, key: r.key }))],
        },
        updateManifestUrl: stack.update.manifestUrl,
        upstreamBodySettings: { guardrailMaxBodyBytes: stack.extras.guardrail.maxBodyBytes, knowledgeMaxUploadBytes: stack.extras.knowledge.maxUploadBytes },
        tls: lan ? { certFile: tlsCertFile, keyFile: tlsKeyFile, hosts: [...new Set([new URL(publicUrl).hostname.replace(/^\[|\]$/g, ''), ...addresses])] } : null,
      };
      out[name] = g;
    } else if (name === 'auth') {
      const a: AuthConfig = {
        ...common('auth'),
        service: 'auth',
        issuer: `${publicUrl}/auth`,
        audience: 'svc-frontend',
        passwordLoginEnabled: stack.passwordLoginEnabled,
        ...stack.auth,
        // Issue 15 item 3: directory sign-in through dirauth; auth waits a little longer than dirauth's own deadline.
        directoryTimeoutMs: stack.extras.dirauth.ldap ? stack.extras.dirauth.ldap.timeoutMs * 3 + 1000 : null,
        groupRoleMap: JSON.parse(JSON.stringify(stack.gateway.groupRoleMap)) as Record<string, string[]>,
        externalIdps: stack.gateway.externalIssuers.map((i) => ({ name: new URL(i.issuer).host, issuer: i.issuer })),
        idp,
      };
      out[name] = a;
    } else if (name === 'audit') {
      const a: AuditConfig = { ...common('audit'), service: 'audit', ...stack.audit };
      out[name] = a;
    } else {
      const own = (stack.extras as Partial<Record<ServiceName, object>>)[name] ?? {};
      const p: PlainServiceConfig = { ...common(name), ...(JSON.parse(JSON.stringify(own)) as object), service: name };
      out[name] = p;
    }
  }
  return out as ServiceConfigs;
}
