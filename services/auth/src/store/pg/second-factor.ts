/**
 * PostgreSQL table groups of the second factor (issue 21 item 1; migrations/auth/pg/0001_init.sql):
 * `devices`, `enrollments`, `login_challenges`, `recovery_codes`, `device_proof_jtis`,
 * `second_factor_policy`. Same statements, ordering and conflict rules as the SQLite stores beside.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type {
  ChallengeOutcome, ChallengeRecord, ChallengeState, ChallengeStore, DeviceRecord, DeviceStore, EnrollmentRecord, EnrollmentStore,
  PolicyStore, ProofJtiStore, RecoveryCodeStore,
} from '../../domain/device-ports.js';

type DeviceRow = Omit<DeviceRecord, 'public_jwk'> & { public_jwk: string };
const deviceOf = (r: DeviceRow): DeviceRecord => ({ ...r, public_jwk: JSON.parse(r.public_jwk) as DeviceRecord['public_jwk'] });

/** PostgreSQL implementation of `DeviceStore`. */
export class PgDeviceStore implements DeviceStore {
  constructor(private readonly db: PgDb) {}

  async insert(d: DeviceRecord): Promise<boolean> {
    return (await this.db.exec(`INSERT INTO devices (id, user_id, name, public_jwk, jwk_thumbprint, totp_secret, totp_last_step,
      current_refresh_jti, state, created_at, last_seen_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
    [d.id, d.user_id, d.name, JSON.stringify(d.public_jwk), d.jwk_thumbprint, d.totp_secret, d.totp_last_step,
      d.current_refresh_jti, d.state, d.created_at, d.last_seen_at, d.revoked_at])) === 1;
  }
  async byId(id: string): Promise<DeviceRecord | null> {
    const [r] = await this.db.query<DeviceRow>('SELECT * FROM devices WHERE id = $1', [id]);
    return r ? deviceOf(r) : null;
  }
  async byUser(userId: string): Promise<DeviceRecord[]> {
    return (await this.db.query<DeviceRow>('SELECT * FROM devices WHERE user_id = $1 ORDER BY created_at DESC, id DESC', [userId])).map(deviceOf);
  }
  async pairedCount(userId: string): Promise<number> {
    return (await this.db.query<{ n: number }>("SELECT count(*) AS n FROM devices WHERE user_id = $1 AND state = 'paired'", [userId]))[0]!.n;
  }
  async rename(id: string, name: string): Promise<void> { await this.db.exec('UPDATE devices SET name = $1 WHERE id = $2', [name, id]); }
  async swapRefresh(id: string, expected: string, next: string): Promise<boolean> {
    return (await this.db.exec("UPDATE devices SET current_refresh_jti = $1 WHERE id = $2 AND current_refresh_jti = $3 AND state = 'paired'",
      [next, id, expected])) === 1;
  }
  async revoke(id: string, at: number): Promise<boolean> {
    return (await this.db.exec("UPDATE devices SET state = 'revoked', revoked_at = $1, current_refresh_jti = NULL WHERE id = $2 AND state = 'paired'",
      [at, id])) === 1;
  }
  async touch(id: string, at: number): Promise<void> {
    await this.db.exec('UPDATE devices SET last_seen_at = greatest(coalesce(last_seen_at, 0), $1::bigint) WHERE id = $2', [at, id]);
  }
  async useTotpStep(id: string, step: number): Promise<boolean> {
    return (await this.db.exec(
      "UPDATE devices SET totp_last_step = $1 WHERE id = $2 AND state = 'paired' AND (totp_last_step IS NULL OR totp_last_step < $1)", [step, id])) === 1;
  }
}

/** PostgreSQL implementation of `EnrollmentStore`. */
export class PgEnrollmentStore implements EnrollmentStore {
  constructor(private readonly db: PgDb) {}

  async insert(e: EnrollmentRecord): Promise<void> {
    await this.db.exec(`INSERT INTO enrollments (id, user_id, nonce, challenge_id, created_at, expires_at, used_at, device_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [e.id, e.user_id, e.nonce, e.challenge_id, e.created_at, e.expires_at, e.used_at, e.device_id]);
  }
  async byId(id: string): Promise<EnrollmentRecord | null> {
    return (await this.db.query<EnrollmentRecord>('SELECT * FROM enrollments WHERE id = $1', [id]))[0] ?? null;
  }
  async pendingCount(userId: string, now: number): Promise<number> {
    return (await this.db.query<{ n: number }>(
      'SELECT count(*) AS n FROM enrollments WHERE user_id = $1 AND used_at IS NULL AND challenge_id IS NULL AND expires_at > $2', [userId, now]))[0]!.n;
  }
  async markUsed(id: string, at: number, deviceId: string): Promise<boolean> {
    return (await this.db.exec('UPDATE enrollments SET used_at = $1, device_id = $2 WHERE id = $3 AND used_at IS NULL', [at, deviceId, id])) === 1;
  }
  prune(before: number): Promise<number> { return this.db.exec('DELETE FROM enrollments WHERE expires_at < $1', [before]); }
}

type ChallengeRow = Omit<ChallengeRecord, 'numbers' | 'methods'> & { numbers: string; methods: string };
const challengeOf = (r: ChallengeRow): ChallengeRecord => ({
  ...r, numbers: JSON.parse(r.numbers) as number[], methods: JSON.parse(r.methods) as ChallengeRecord['methods'],
});

/** PostgreSQL implementation of `ChallengeStore`. */
export class PgChallengeStore implements ChallengeStore {
  constructor(private readonly db: PgDb) {}

  async insert(c: ChallengeRecord): Promise<void> {
    await this.db.exec(`INSERT INTO login_challenges (id, user_id, number_match, numbers, methods, client_ip, user_agent, state,
      outcome, device_id, code_failures, created_at, expires_at, answered_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [c.id, c.user_id, c.number_match, JSON.stringify(c.numbers), JSON.stringify(c.methods), c.client_ip, c.user_agent, c.state,
      c.outcome, c.device_id, c.code_failures, c.created_at, c.expires_at, c.answered_at]);
  }
  async byId(id: string): Promise<ChallengeRecord | null> {
    const [r] = await this.db.query<ChallengeRow>('SELECT * FROM login_challenges WHERE id = $1', [id]);
    return r ? challengeOf(r) : null;
  }
  async countSince(userId: string, since: number): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM login_challenges WHERE user_id = $1 AND created_at > $2', [userId, since]))[0]!.n;
  }
  async oldestSince(userId: string, since: number): Promise<number | null> {
    return (await this.db.query<{ t: number | null }>(
      'SELECT min(created_at) AS t FROM login_challenges WHERE user_id = $1 AND created_at > $2', [userId, since]))[0]?.t ?? null;
  }
  async pendingOf(userId: string, now: number): Promise<ChallengeRecord[]> {
    return (await this.db.query<ChallengeRow>(
      "SELECT * FROM login_challenges WHERE user_id = $1 AND state = 'pending' AND expires_at > $2 ORDER BY created_at, id", [userId, now])).map(challengeOf);
  }
  async transition(id: string, from: ChallengeState, to: ChallengeState, outcome: ChallengeOutcome | null, deviceId: string | null, at: number): Promise<boolean> {
    return (await this.db.exec(
      'UPDATE login_challenges SET state = $1, outcome = $2, device_id = coalesce($3::text, device_id), answered_at = $4 WHERE id = $5 AND state = $6',
      [to, outcome, deviceId, at, id, from])) === 1;
  }
  expirePending(userId: string, at: number): Promise<number> {
    return this.db.exec("UPDATE login_challenges SET state = 'expired', outcome = 'superseded', answered_at = $1 WHERE user_id = $2 AND state = 'pending'",
      [at, userId]);
  }
  async addCodeFailure(id: string): Promise<number> {
    return (await this.db.query<{ code_failures: number }>(
      'UPDATE login_challenges SET code_failures = code_failures + 1 WHERE id = $1 RETURNING code_failures', [id]))[0]?.code_failures ?? 0;
  }
  prune(before: number): Promise<number> { return this.db.exec('DELETE FROM login_challenges WHERE created_at < $1', [before]); }
}

/** PostgreSQL implementation of `RecoveryCodeStore` (`replace` is one transaction, a savepoint inside another). */
export class PgRecoveryCodeStore implements RecoveryCodeStore {
  constructor(private readonly db: PgDb) {}

  replace(userId: string, hashes: string[], at: number): Promise<void> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
      if (hashes.length === 0) return;
      await this.db.exec('INSERT INTO recovery_codes (user_id, code_hash, created_at) SELECT $1, h, $3 FROM unnest($2::text[]) AS h',
        [userId, hashes, at]);
    });
  }
  async use(userId: string, hash: string, at: number): Promise<boolean> {
    return (await this.db.exec('UPDATE recovery_codes SET used_at = $1 WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL', [at, userId, hash])) === 1;
  }
  async status(userId: string): Promise<{ remaining: number; created_at: number | null }> {
    return (await this.db.query<{ remaining: number; created_at: number | null }>(
      'SELECT count(*) FILTER (WHERE used_at IS NULL) AS remaining, max(created_at) AS created_at FROM recovery_codes WHERE user_id = $1', [userId]))[0]!;
  }
}

/** PostgreSQL implementation of `ProofJtiStore`. */
export class PgProofJtiStore implements ProofJtiStore {
  constructor(private readonly db: PgDb) {}

  async remember(deviceId: string, jti: string, expiresAt: number): Promise<boolean> {
    return (await this.db.exec('INSERT INTO device_proof_jtis (device_id, jti, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [deviceId, jti, expiresAt])) === 1;
  }
  prune(before: number): Promise<number> { return this.db.exec('DELETE FROM device_proof_jtis WHERE expires_at < $1', [before]); }
}

/** PostgreSQL implementation of `PolicyStore`. */
export class PgPolicyStore implements PolicyStore {
  constructor(private readonly db: PgDb) {}

  async get(): Promise<{ enforced: boolean; updated_at: number; updated_by: string } | null> {
    return (await this.db.query<{ enforced: boolean; updated_at: number; updated_by: string }>(
      'SELECT enforced, updated_at, updated_by FROM second_factor_policy WHERE id = 1'))[0] ?? null;
  }
  async set(enforced: boolean, at: number, by: string): Promise<void> {
    await this.db.exec(`INSERT INTO second_factor_policy (id, enforced, updated_at, updated_by) VALUES (1, $1, $2, $3)
      ON CONFLICT (id) DO UPDATE SET enforced = excluded.enforced, updated_at = excluded.updated_at, updated_by = excluded.updated_by`, [enforced, at, by]);
  }
}
