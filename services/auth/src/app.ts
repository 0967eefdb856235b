/**
 * The auth service, as the kit builds it (DESIGN.md "Inside a service"): opens the store, loads or
 * creates the signing key, runs the first-start rules, wires the phone second factor (issue 14:
 * devices, pairing, mobile tokens, login challenges, recovery codes, the device channel; audit rows
 * and notifications through the audit and agent-runtime clients), registers the routes, and prunes
 * expired refresh tokens, old login-throttle state, old revocations, spent pairings, old challenges
 * and expired device-proof jtis in the background.
 *
 * This is the model room: every service is a `defineService` whose `setup` only wires stores,
 * domain services and route plugins.
 */
import { join } from 'node:path';
import { AuditClient } from '../../audit/src/client.js';
import { NotificationsClient } from '../../agent-runtime/src/client.js';
import type { AuthConfig } from '../../shared/config.js';
import { ClientHopVerifier } from '../../shared/identity/client-hop.js';
import { tlsFingerprintOf } from '../../shared/identity/tls-cert.js';
import { defineService } from '../../shared/kit/service.js';
import { DirauthClient } from '../../dirauth/src/client.js';
import { ClientSecurityEvents } from './clients/security-events.js';
import { AUTH_ERRORS, HANDOFF_FILE, PAIR_PREFIX, SIGNING_KEY_FILE, type AuthRuntime } from './contracts.js';
import { firstStart } from './domain/bootstrap.js';
import { ChallengeAnswerService } from './domain/challenge-answers.js';
import { ChallengeBus } from './domain/challenge-bus.js';
import { CHALLENGE_TTL_DEFAULT_SECONDS, ChallengeService } from './domain/challenges.js';
import { DeviceChannel } from './domain/device-channel.js';
import { DeviceProofVerifier } from './domain/device-proofs.js';
import { DeviceService } from './domain/devices.js';
import { EnrollmentService } from './domain/enrollment.js';
import { HandoffService } from './domain/handoff.js';
import { LoginService } from './domain/login.js';
import { MobileTokenService } from './domain/mobile-tokens.js';
import { PasswordHasher } from './domain/passwords.js';
import { RecoveryCodeService } from './domain/recovery-codes.js';
import { RevocationService } from './domain/revocations.js';
import { PolicyService } from './domain/second-factor-policy.js';
import { SignInLog } from './domain/sign-in-log.js';
import { TokenService } from './domain/tokens.js';
import { UserService } from './domain/users.js';
import { deviceChannelRoutes } from './routes/device-channel.js';
import { deviceRoutes } from './routes/devices.js';
import { loginChallengeRoutes } from './routes/login-challenge.js';
import { pairingRoutes } from './routes/pairing.js';
import { publicRoutes } from './routes/public.js';
import { ssoAdminRoutes } from './routes/sso-admin.js';
import { startUpstreamSso } from './idp/broker-wiring.js';
import { brokerRoutes, type BrokeredLoginHook } from './idp/broker-routes.js';
import { setupEmbeddedIdp } from './idp/setup.js';
import { finishLogin } from './idp/finish-login.js';
import { interactionRoutes } from './idp/interaction-routes.js';
import { revocationRoutes } from './routes/revocations.js';
import { sessionRoutes } from './routes/session.js';
import { signInRoutes } from './routes/sign-ins.js';
import { userRoutes } from './routes/users.js';
import { openAuthStore, type AuthStore } from './store/auth-store.js';
import { openPgAuthStore } from './store/pg/index.js';
import { FsHandoffFile } from './store/handoff-file.js';
import { loadOrCreateSigningKey } from './store/signing-key-file.js';

/** How often expired refresh tokens and old login failures are deleted, ms. */
const PRUNE_INTERVAL_MS = 10 * 60_000;

/** How long finished pairings and login challenges are kept, ms (one day). */
const SECOND_FACTOR_KEEP_MS = 86_400_000;

/** Longest wait for audit rows and notifications in flight at shutdown, ms. */
const EVENTS_DRAIN_MS = 2000;

/** The auth service (port 8012): local accounts and the embedded issuer `{public_url}/auth`. */
export const authService = defineService<AuthConfig, AuthRuntime>({
  name: 'auth',
  errors: AUTH_ERRORS,
  bodyLimit: 64 * 1024,
  // Issue 15 item 4: the embedded IdP authenticates its own clients (no service token there).
  serviceAuthOpenPrefixes: ['/idp/realms/svc/'],
  async setup({ cfg, runtime, logger, app, onClose, background }) {
    const clock = runtime.clock ?? Date.now;
    // Issue 21 item 1: PostgreSQL (schema `auth`) when cfg.database is set, else `<dbDir>/auth.sqlite`.
    const store: AuthStore = cfg.database ? await openPgAuthStore(cfg.database, cfg.migrationsDir) : openAuthStore(cfg);
    onClose(() => store.close());
    app.health.check(async () => ((await store.ready()) ? true : `auth store ${store.isOpen ? 'unreachable' : 'closed'}`));
    // Issue 15 item 5: who signed in how (the login challenges tell it which second factor ran).
    const signIns: SignInLog = new SignInLog({
      store: store.signIns, clock, log: logger, secondFactorRequired: async (id: string): Promise<boolean> => (await loginChallenges.required(id)).required,
    });
    const key = await loadOrCreateSigningKey(join(cfg.dataDir, SIGNING_KEY_FILE));
    const hasher = new PasswordHasher(cfg.scryptN);
    const { users, refresh, failures, throttle, revocations, handoffs } = store;
    const tx = store.txAsync;
    const tokens = new TokenService({
      key, users, refresh, tx, clock, settings: cfg, revocations,
      groupsOf: async (userId) => (await store.directoryAccounts.get(userId))?.groups ?? (await store.upstreamLinks.byUser(userId))[0]?.groups ?? [],
      onReuse: (info) => logger.warn(info, 'refresh token reused; session revoked'),
    });
    const file = new FsHandoffFile(join(cfg.dataDir, HANDOFF_FILE));
    const handoff = new HandoffService({ users, handoffs, file, tokens, tx, clock, signIns });
    // Issue 15 item 3: usernames that are not local password accounts go to the corporate directory.
    const directory = cfg.directoryTimeoutMs ? {
      port: new DirauthClient({ baseUrl: cfg.serviceUrls.dirauth, service: 'auth', tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, timeoutMs: cfg.directoryTimeoutMs }),
      accounts: store.directoryAccounts, groupRoleMap: cfg.groupRoleMap ?? {},
    } : undefined;
    const login = new LoginService({ settings: cfg, users, failures, throttle, hasher, tokens, tx, clock, signIns, ...(directory ? { directory } : {}) });
    const revocationList = new RevocationService({ revocations, clock, settings: cfg });
    const userService = new UserService({ users, hasher, tokens, clock });

    // Issue 14: the phone second factor.
    const { devices, enrollments, challenges, recoveryCodes, proofJtis } = store;
    const events = new ClientSecurityEvents({
      audit: new AuditClient({ baseUrl: cfg.serviceUrls.audit, service: 'auth', tenantId: cfg.tenantId, principalKeys: cfg.principalKeys }),
      notifications: new NotificationsClient({
        baseUrl: cfg.serviceUrls['agent-runtime'], service: 'auth', tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, log: logger,
      }),
      tenantId: cfg.tenantId, log: logger,
    });
    onClose(() => Promise.race([events.idle(), new Promise<void>((r) => setTimeout(r, EVENTS_DRAIN_MS).unref())]));
    const bus = new ChallengeBus();
    const policy = new PolicyService({ policy: store.policy, clock, envDefault: cfg.secondFactorEnforced ?? false });
    const codes = new RecoveryCodeService({ codes: recoveryCodes, users, events, clock });
    const deviceService = new DeviceService({ devices, users, codes: recoveryCodes, revocations, policy, events, tx, clock });
    const mobile = new MobileTokenService({ key, tokens, devices, deviceService, users, tx, clock, settings: cfg });
    const enrollment = new EnrollmentService({
      key, enrollments, devices, users, mobile, events, tx, clock, settings: cfg, signIns,
      fingerprint: runtime.tlsFingerprint ?? (() => tlsFingerprintOf(cfg.dataDir)),
    });
    const proofs = new DeviceProofVerifier({ devices, jtis: proofJtis, clock, audience: `${cfg.publicUrl}${PAIR_PREFIX}` });
    const loginChallenges = new ChallengeService({
      challenges, devices, users, codes, policy, enrollment, events, bus, tx, clock,
      ttlSeconds: cfg.challengeTtlSeconds ?? CHALLENGE_TTL_DEFAULT_SECONDS, signIns,
    });
    const answers = new ChallengeAnswerService({ challenges, users, proofs, events, bus, clock });
    const channel = new DeviceChannel({ proofs, answers, bus, clock });

    const bootstrapAdmin = cfg.bootstrapAdminEmail && cfg.bootstrapAdminPassword
      ? { email: cfg.bootstrapAdminEmail, password: cfg.bootstrapAdminPassword } : null;
    const outcome = await firstStart({ users, handoffs, file, handoff, hasher, tx, clock, bootstrapAdmin });
    if (outcome.kind === 'bootstrap_admin_created') logger.info({ user_id: outcome.user_id }, 'bootstrap admin created');
    if (outcome.kind === 'installer_handoff_issued') logger.info({ user_id: outcome.user_id, file: HANDOFF_FILE }, 'installer handoff written');

    const prune = async (): Promise<void> => {
      const now = clock();
      await refresh.pruneExpired(now);
      await login.prune(now);
      await revocationList.prune(now);
      await enrollments.prune(now - SECOND_FACTOR_KEEP_MS);
      await challenges.prune(now - SECOND_FACTOR_KEEP_MS);
      await proofJtis.prune(now);
      await signIns.prune(now);
    };
    await prune();
    background('prune', () => {
      const timer = setInterval(() => {
        prune().catch((err: unknown) => { logger.warn({ err: (err as Error).message }, 'auth store prune failed'); });
      }, PRUNE_INTERVAL_MS);
      timer.unref();
      return () => clearInterval(timer);
    });

    // Issue 15 item 1: the embedded OpenID Connect provider at {publicUrl}/idp/realms/svc (null when cfg.idp is absent).
    const idp = cfg.idp ? await setupEmbeddedIdp({
      cfg: { ...cfg, idp: cfg.idp }, app, models: store.idpModels, users, login, clock, background, pruneEveryMs: PRUNE_INTERVAL_MS,
      groupsOf: async (userId) => (await store.directoryAccounts.get(userId))?.groups ?? [], hop: new ClientHopVerifier(cfg.principalKeys),
    }) : null;
    // Issue 15 item 2: upstream SSO brokering (admin surface, `idps` of /v1/auth/idps, broker routes).
    const upstream = startUpstreamSso({ cfg, store, clock, onClose });
    const brokered: BrokeredLoginHook = {};
    // Issue 15 item 1: the realm's sign-in pages (password, second factor, upstream IdPs as buttons).
    if (idp) {
      await app.register(interactionRoutes, {
        provider: idp.provider, login, challenges: loginChallenges, hop: new ClientHopVerifier(cfg.principalKeys), broker: upstream.broker, brokered,
        issuer: idp.issuer, passwordLoginEnabled: cfg.passwordLoginEnabled,
        finishLogin: (req, res, accountId) => finishLogin(idp.provider, req, res, { accountId, authMethod: 'password' }, { redirect: false }),
      });
    }
    background('upstream-sso-prune', () => upstream.pruneEvery(PRUNE_INTERVAL_MS));
    if (idp) await app.register(brokerRoutes, { provider: idp.provider, broker: upstream.broker, localPrefix: idp.localPrefix, clock, signIns, hook: brokered });
    await app.register(publicRoutes, { cfg, key, handoff, policy, ...(idp ? { upstream: upstream.broker } : {}) });
    // Spec "Gateway-owned admin": /v1/admin/sso/idps is mounted when an IdP is configured; the embedded one counts.
    if (idp) await app.register(ssoAdminRoutes, { broker: upstream.broker });
    else logger.warn('upstream SSO admin (/v1/admin/sso/idps) skipped: the embedded IdP is not configured');
    await app.register(sessionRoutes, { login, tokens, handoff, hop: new ClientHopVerifier(cfg.principalKeys) });
    await app.register(revocationRoutes, { revocations: revocationList });
    await app.register(userRoutes, { users: userService, issuer: cfg.issuer });
    await app.register(pairingRoutes, { enrollment, mobile });
    await app.register(deviceRoutes, { devices: deviceService, codes, policy });
    await app.register(deviceChannelRoutes, { channel, answers });
    await app.register(loginChallengeRoutes, { challenges: loginChallenges });
    await app.register(signInRoutes, { signIns });
  },
});
