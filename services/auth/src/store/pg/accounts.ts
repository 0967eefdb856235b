/**
 * PostgreSQL table groups of accounts and sessions (issue 21 item 1; migrations/auth/pg/0001_init.sql):
 * `users`, `refresh_tokens`, `login_failures`, `login_throttle`, `token_revocations`,
 * `installer_handoffs`. Same statements, ordering and conflict rules as the SQLite stores beside.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type {
  FailureStats, HandoffRecord, HandoffStore, LoginFailureStore, LoginThrottleStore, RefreshTokenRecord, RefreshTokenStore,
  RevocationRecord, RevocationStore, ThrottleState, UserRecord, UserStore,
} from '../../domain/ports.js';

interface UserRow {
  id: string; email: string; display_name: string; password_hash: string | null;
  roles: string; disabled: boolean; created_at: string; updated_at: string;
}

const userOf = (r: UserRow): UserRecord => ({ ...r, roles: JSON.parse(r.roles) as string[] });

/** PostgreSQL implementation of `UserStore`. */
export class PgUserStore implements UserStore {
  constructor(private readonly db: PgDb) {}

  async insert(u: UserRecord): Promise<boolean> {
    return (await this.db.exec(`INSERT INTO users (id, email, display_name, password_hash, roles, disabled, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
    [u.id, u.email.toLowerCase(), u.display_name, u.password_hash, JSON.stringify(u.roles), u.disabled, u.created_at, u.updated_at])) === 1;
  }
  async save(u: UserRecord): Promise<void> {
    await this.db.exec('UPDATE users SET display_name = $1, password_hash = $2, roles = $3, disabled = $4, updated_at = $5 WHERE id = $6',
      [u.display_name, u.password_hash, JSON.stringify(u.roles), u.disabled, u.updated_at, u.id]);
  }
  async byId(id: string): Promise<UserRecord | null> {
    const [r] = await this.db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
    return r ? userOf(r) : null;
  }
  async byEmail(email: string): Promise<UserRecord | null> {
    const [r] = await this.db.query<UserRow>('SELECT * FROM users WHERE email = $1', [email.toLowerCase()]);
    return r ? userOf(r) : null;
  }
  async list(after: string | null, limit: number): Promise<UserRecord[]> {
    return (await this.db.query<UserRow>('SELECT * FROM users WHERE id > $1 ORDER BY id LIMIT $2', [after ?? '', limit])).map(userOf);
  }
  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM users'))[0]!.n;
  }
}

/** PostgreSQL implementation of `RefreshTokenStore`. */
export class PgRefreshTokenStore implements RefreshTokenStore {
  constructor(private readonly db: PgDb) {}

  async insert(t: RefreshTokenRecord): Promise<void> {
    await this.db.exec(`INSERT INTO refresh_tokens (jti, token_hash, family_id, user_id, issued_at, expires_at, used_at, revoked_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [t.jti, t.token_hash, t.family_id, t.user_id, t.issued_at, t.expires_at, t.used_at, t.revoked_at]);
  }
  async byHash(tokenHash: string): Promise<RefreshTokenRecord | null> {
    return (await this.db.query<RefreshTokenRecord>('SELECT * FROM refresh_tokens WHERE token_hash = $1', [tokenHash]))[0] ?? null;
  }
  async markUsed(jti: string, at: number): Promise<boolean> {
    return (await this.db.exec('UPDATE refresh_tokens SET used_at = $1 WHERE jti = $2 AND used_at IS NULL AND revoked_at IS NULL', [at, jti])) === 1;
  }
  revokeFamily(familyId: string, at: number): Promise<number> {
    return this.db.exec('UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL', [at, familyId]);
  }
  revokeUser(userId: string, at: number): Promise<number> {
    return this.db.exec('UPDATE refresh_tokens SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL', [at, userId]);
  }
  pruneExpired(before: number): Promise<number> {
    return this.db.exec('DELETE FROM refresh_tokens WHERE expires_at < $1', [before]);
  }
}

/** PostgreSQL implementation of `LoginFailureStore`. */
export class PgLoginFailureStore implements LoginFailureStore {
  constructor(private readonly db: PgDb) {}

  async record(account: string, ip: string, at: number): Promise<number> {
    return (await this.db.query<{ id: number }>('INSERT INTO login_failures (account, ip, at) VALUES ($1, $2, $3) RETURNING id', [account, ip, at]))[0]!.id;
  }
  async remove(id: number): Promise<void> { await this.db.exec('DELETE FROM login_failures WHERE id = $1', [id]); }
  async ipStats(ip: string, since: number, max: number): Promise<FailureStats> {
    const count = (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM login_failures WHERE ip = $1 AND at > $2', [ip, since]))[0]!.n;
    if (count < max) return { count, blockingAt: null };
    // With count >= max, the count drops below max once the (count - max + 1) oldest have expired.
    const [nth] = await this.db.query<{ at: number }>('SELECT at FROM login_failures WHERE ip = $1 AND at > $2 ORDER BY at LIMIT 1 OFFSET $3',
      [ip, since, count - max]);
    return { count, blockingAt: nth?.at ?? null };
  }
  async clearPair(account: string, ip: string): Promise<void> {
    await this.db.exec('DELETE FROM login_failures WHERE account = $1 AND ip = $2', [account, ip]);
  }
  prune(before: number): Promise<number> { return this.db.exec('DELETE FROM login_failures WHERE at < $1', [before]); }
}

/** First key of the login-counting lock ('auth' in ASCII); the second is the source's hashtext. */
const LOGIN_LOCK = 0x61757468;

/** PostgreSQL implementation of `LoginThrottleStore`. */
export class PgLoginThrottleStore implements LoginThrottleStore {
  constructor(private readonly db: PgDb) {}

  /** `pg_advisory_xact_lock(<'auth'>, hashtext(source))`, released at the transaction's end. */
  async lockSource(source: string): Promise<void> {
    await this.db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOGIN_LOCK, source]);
  }

  async get(account: string, source: string): Promise<ThrottleState | null> {
    return (await this.db.query<ThrottleState>('SELECT failures, last_at FROM login_throttle WHERE account = $1 AND source = $2', [account, source]))[0] ?? null;
  }
  async put(account: string, source: string, state: ThrottleState): Promise<void> {
    await this.db.exec(`INSERT INTO login_throttle (account, source, failures, last_at) VALUES ($1, $2, $3, $4)
      ON CONFLICT (account, source) DO UPDATE SET failures = excluded.failures, last_at = excluded.last_at`, [account, source, state.failures, state.last_at]);
  }
  async clear(account: string, source: string): Promise<void> {
    await this.db.exec('DELETE FROM login_throttle WHERE account = $1 AND source = $2', [account, source]);
  }
  prune(before: number): Promise<number> { return this.db.exec('DELETE FROM login_throttle WHERE last_at < $1', [before]); }
}

/**
 * PostgreSQL implementation of `RevocationStore`: `seq` from a sequence (never goes back; it may skip
 * the value of an insert that rolled back), `latest()` from `token_revocations_high`, raised by the
 * inserting statement itself, so a rolled-back insert leaves it as it was (SQLite's sqlite_sequence).
 */
export class PgRevocationStore implements RevocationStore {
  constructor(private readonly db: PgDb) {}

  async record(subject: string, sessionId: string | null, revokedAt: number): Promise<number> {
    return (await this.db.query<{ seq: number }>(`WITH r AS (INSERT INTO token_revocations (subject, session_id, revoked_at) VALUES ($1, $2, $3) RETURNING seq),
      h AS (UPDATE token_revocations_high SET seq = greatest(token_revocations_high.seq, (SELECT seq FROM r)) WHERE id = 1)
      SELECT seq FROM r`, [subject, sessionId, revokedAt]))[0]!.seq;
  }
  after(after: number, since: number, limit: number): Promise<RevocationRecord[]> {
    return this.db.query<RevocationRecord>(
      'SELECT seq, subject, session_id, revoked_at FROM token_revocations WHERE seq > $1 AND revoked_at > $2 ORDER BY seq LIMIT $3', [after, since, limit]);
  }
  async latest(): Promise<number> {
    const [r] = await this.db.query<{ seq: number }>('SELECT seq FROM token_revocations_high WHERE id = 1');
    return r?.seq ?? 0;
  }
  prune(before: number): Promise<number> { return this.db.exec('DELETE FROM token_revocations WHERE revoked_at < $1', [before]); }
}

/** PostgreSQL implementation of `HandoffStore`. */
export class PgHandoffStore implements HandoffStore {
  constructor(private readonly db: PgDb) {}

  async insert(r: HandoffRecord): Promise<void> {
    await this.db.exec('INSERT INTO installer_handoffs (id_hash, user_id, created_at) VALUES ($1, $2, $3)', [r.id_hash, r.user_id, r.created_at]);
  }
  async pending(): Promise<HandoffRecord | null> {
    return (await this.db.query<HandoffRecord>(
      'SELECT id_hash, user_id, created_at FROM installer_handoffs WHERE spent_at IS NULL ORDER BY created_at DESC LIMIT 1'))[0] ?? null;
  }
  async spend(idHash: string, at: number): Promise<string | null> {
    return (await this.db.query<{ user_id: string }>(
      'UPDATE installer_handoffs SET spent_at = $1 WHERE id_hash = $2 AND spent_at IS NULL RETURNING user_id', [at, idHash]))[0]?.user_id ?? null;
  }
  async spendAll(at: number): Promise<void> { await this.db.exec('UPDATE installer_handoffs SET spent_at = $1 WHERE spent_at IS NULL', [at]); }
}
