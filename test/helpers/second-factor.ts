/**
 * Test scaffolding of the phone second factor (issue 14): the real auth service on an ephemeral
 * port with a settable clock, a capture server standing in for the audit service and the agent
 * runtime's notification inbox, callers stamped as a user, an admin or the gateway, and a phone
 * simulated with `jose` (its own P-256 key, enrollment proof, device proofs, signed answers) and
 * `otpauth` (its offline code), exactly as docs/mobile-2fa.md describes the protocol.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { start } from '../../services/auth/src/index.js';
import type { AuthRuntime } from '../../services/auth/src/contracts.js';
import type { AuthConfig } from '../../services/shared/config.js';
import { servicePrincipal, signStamp, type Principal } from '../../services/shared/identity/principal.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { ADMIN_PASSWORD, ISSUER, authConfig } from './auth.js';

/** A clock that runs with real time but can jump ahead (Unix ms). */
export function jumpClock(): { now: () => number; advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance(ms: number) { offset += ms; } };
}

/** What the capture server received. */
export interface Captured {
  audit: Array<{ action: string; user_id?: string; resource_id?: string; detail?: Record<string, unknown> }>;
  notifications: Array<{ user_id: string; kind: string; title: string; payload?: Record<string, unknown> | null }>;
}

/** An HTTP server answering 201 to `POST /v1/audit` and `POST /v1/internal/notifications`, recording the bodies. */
export async function captureServer(): Promise<{ url: string; seen: Captured; close(): Promise<void> }> {
  const seen: Captured = { audit: [], notifications: [] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
    req.on('end', () => {
      const parsed: unknown = body ? JSON.parse(body) : null;
      if (req.url === '/v1/audit') seen.audit.push(parsed as Captured['audit'][number]);
      else if (req.url === '/v1/internal/notifications') seen.notifications.push(parsed as Captured['notifications'][number]);
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', kind: 'k', title: 't', body: null, payload: null, read_at: null, created_at: new Date().toISOString() }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** A JSON answer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export interface Answer { status: number; body: any; headers: Headers }

/** The auth service under test with its callers. */
export interface TwoFactorWorld {
  cfg: AuthConfig;
  svc: RunningService;
  base: string;
  clock: ReturnType<typeof jumpClock>;
  capture: Awaited<ReturnType<typeof captureServer>>;
  /** Call the auth service; `as` stamps a principal. */
  call(method: string, path: string, opts?: { body?: unknown; as?: Principal; headers?: Record<string, string> }): Promise<Answer>;
  /** A principal of user `id` with `roles`. */
  user(id: string, roles?: string[], email?: string): Principal;
  /** The gateway's service principal. */
  gateway(): Principal;
  /** Create a local account (through the admin route). @returns its id and principal. */
  addUser(email: string, roles?: string[]): Promise<{ id: string; p: Principal }>;
  /** The bootstrap admin's id and principal. */
  admin(): Promise<{ id: string; p: Principal }>;
  /** Wait until the capture server saw `n` rows/notices matching `pred` (audit and notifications are asynchronous). */
  waitFor<K extends keyof Captured>(kind: K, pred: (x: Captured[K][number]) => boolean, n?: number): Promise<Array<Captured[K][number]>>;
  close(): Promise<void>;
}

/** Start the auth service (temp data dir, capture server, jump clock) with config overrides. */
export async function twoFactorWorld(over: Partial<AuthConfig> = {}, runtime: Partial<AuthRuntime> = {}): Promise<TwoFactorWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-2fa-'));
  const capture = await captureServer();
  const clock = jumpClock();
  const cfg = authConfig(dir, over);
  cfg.serviceUrls = { ...cfg.serviceUrls, audit: capture.url, 'agent-runtime': capture.url };
  const svc = await start(cfg, { clock: clock.now, ...runtime });
  const base = `http://127.0.0.1:${svc.port}`;
  const user = (id: string, roles: string[] = ['user'], email?: string): Principal => {
    const now = Math.floor(Date.now() / 1000);
    const p: Principal = { id, tenant_id: cfg.tenantId, roles, groups: [], auth_method: 'password', local_iss: ISSUER, local_sub: id, iat: now, exp: now + 300 };
    if (email) p.email = email;
    return p;
  };
  const call: TwoFactorWorld['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.as) headers['x-svc-principal'] = signStamp(opts.as, cfg.principalKeys);
    const res = await fetch(base + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  const anAdmin = user('01ADMINTESTER0000000000000', ['admin', 'user']);
  const w: TwoFactorWorld = {
    cfg, svc, base, clock, capture, call, user,
    gateway: () => servicePrincipal('gateway', cfg.tenantId),
    async addUser(email, roles = ['user']) {
      const r = await call('POST', '/v1/admin/users', { as: anAdmin, body: { email, display_name: email.split('@')[0], password: ADMIN_PASSWORD, roles } });
      if (r.status !== 201) throw new Error(`addUser ${email}: ${r.status} ${JSON.stringify(r.body)}`);
      return { id: r.body.id as string, p: user(r.body.id as string, roles, email) };
    },
    async admin() {
      const r = await call('GET', '/v1/admin/users', { as: anAdmin });
      const a = (r.body.items as Array<{ id: string; roles: string[]; email: string }>).find((u) => u.roles.includes('admin'))!;
      return { id: a.id, p: user(a.id, ['admin', 'user'], a.email) };
    },
    async waitFor(kind, pred, n = 1) {
      for (let i = 0; i < 200; i++) {
        const hits = (capture.seen[kind] as Array<Captured[typeof kind][number]>).filter(pred);
        if (hits.length >= n) return hits;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`waited in vain for ${n} ${kind}`);
    },
    async close() {
      await svc.close();
      await capture.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return w;
}

/** The parts of an enrollment URL (`{public_url}/m/#pair?token=...&fp=...`). */
export function parseEnrollmentUrl(url: string): { token: string; fp: string; apiBase: string } {
  const u = new URL(url);
  const q = new URLSearchParams(u.hash.slice('#pair?'.length));
  return { token: q.get('token') ?? '', fp: q.get('fp') ?? '', apiBase: u.origin + u.pathname.replace(/\/m\/$/, '') };
}

/** A phone: its key never leaves it; it signs enrollment proofs, device proofs and answers. */
export class SimDevice {
  device_id = '';
  access_token = '';
  refresh_token = '';
  totpSecret = '';
  apiBase = '';

  private constructor(readonly privateKey: CryptoKey, readonly publicJwk: JWK, private readonly now: () => number) {}

  /** A phone with a fresh P-256 key whose clock is `now` (Unix ms). */
  static async create(now: () => number = Date.now): Promise<SimDevice> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    return new SimDevice(privateKey, { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, now);
  }

  private iat(): number { return Math.floor(this.now() / 1000); }

  /** An enrollment proof for `token`; `over` bends claims or the header for negative tests. */
  async enrollmentProof(token: string, over: { enrollment_id?: string; nonce?: string; name?: string; exp?: number; jwk?: JWK; key?: CryptoKey } = {}): Promise<string> {
    const claims = decodeJwt(token) as { jti: string; nonce: string };
    const iat = this.iat();
    return new SignJWT({ enrollment_id: over.enrollment_id ?? claims.jti, nonce: over.nonce ?? claims.nonce, name: over.name ?? 'Test phone' })
      .setProtectedHeader({ alg: 'ES256', typ: 'svc-device-enroll+jwt', jwk: over.jwk ?? this.publicJwk })
      .setIssuedAt(iat).setExpirationTime(over.exp ?? iat + 60)
      .sign(over.key ?? this.privateKey);
  }

  /** Pair with `url` against the service at `base` (the test talks to auth directly). @returns the raw answer. */
  async pair(base: string, url: string, name?: string): Promise<Answer> {
    const { token, apiBase } = parseEnrollmentUrl(url);
    const proof = await this.enrollmentProof(token, name === undefined ? {} : { name });
    const r = await postJson(`${base}/dirauth/pair/enroll`, { enrollment_token: token, proof });
    if (r.status === 201) {
      this.device_id = r.body.device_id;
      this.access_token = r.body.access_token;
      this.refresh_token = r.body.refresh_token;
      this.totpSecret = r.body.totp.secret;
      this.apiBase = r.body.api_base ?? apiBase;
    }
    return r;
  }

  /** A device proof for `htm htu`. */
  async proof(htm = 'GET', htu = '/dirauth/pair/challenges', over: { jti?: string; exp?: number; aud?: string; kid?: string; key?: CryptoKey } = {}): Promise<string> {
    const iat = this.iat();
    return new SignJWT({ htm, htu })
      .setProtectedHeader({ alg: 'ES256', typ: 'svc-device+jwt', kid: over.kid ?? this.device_id })
      .setSubject(over.kid ?? this.device_id).setAudience(over.aud ?? `${this.apiBase}/dirauth/pair`)
      .setIssuedAt(iat).setExpirationTime(over.exp ?? iat + 60).setJti(over.jti ?? randomBytes(16).toString('base64url'))
      .sign(over.key ?? this.privateKey);
  }

  /** A signed answer. */
  async answer(challengeId: string, decision: 'approve' | 'deny' | 'report', number?: number, over: { jti?: string } = {}): Promise<string> {
    const iat = this.iat();
    const claims: Record<string, unknown> = { challenge_id: challengeId, decision };
    if (number !== undefined) claims.number = number;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'svc-device-answer+jwt', kid: this.device_id })
      .setSubject(this.device_id).setIssuedAt(iat).setExpirationTime(iat + 60).setJti(over.jti ?? randomBytes(16).toString('base64url'))
      .sign(this.privateKey);
  }

  /** Answer challenge `id` at `base`. */
  async send(base: string, id: string, decision: 'approve' | 'deny' | 'report', number?: number): Promise<Answer> {
    return postJson(`${base}/dirauth/pair/challenges/${id}/answer`, { answer: await this.answer(id, decision, number) });
  }

  /** List pending challenges at `base` with a fresh proof. */
  async pending(base: string, query = ''): Promise<Answer> {
    const res = await fetch(`${base}/dirauth/pair/challenges${query}`, { headers: { 'x-device-proof': await this.proof() } });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  }

  /** The offline code at `at` (RFC 6238, SHA1, 6 digits, 30 s). */
  code(at: number = this.now()): string {
    return TOTP.generate({ secret: Secret.fromBase32(this.totpSecret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: at });
  }
}

/** POST a JSON body, read a JSON answer. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** Pair a new phone for `p` in `w`. @returns the phone. */
export async function pairPhone(w: TwoFactorWorld, p: Principal, name?: string): Promise<SimDevice> {
  const pairing = await w.call('POST', '/v1/account/devices/pairing', { as: p });
  if (pairing.status !== 201) throw new Error(`pairing: ${pairing.status} ${JSON.stringify(pairing.body)}`);
  const phone = await SimDevice.create(w.clock.now);
  const r = await phone.pair(w.base, pairing.body.enrollment_url, name);
  if (r.status !== 201) throw new Error(`enroll: ${r.status} ${JSON.stringify(r.body)}`);
  return phone;
}
