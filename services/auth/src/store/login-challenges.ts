/** `login_challenges` table (migrations/auth/0003_devices.sql; issue 14). */
import type { Db } from '../../../shared/db/open.js';
import type { ChallengeOutcome, ChallengeRecord, ChallengeState, ChallengeStore } from '../domain/device-ports.js';

interface Row extends Omit<ChallengeRecord, 'numbers' | 'methods'> { numbers: string; methods: string }

function toRecord(r: Row): ChallengeRecord {
  return { ...r, numbers: JSON.parse(r.numbers) as number[], methods: JSON.parse(r.methods) as string[] };
}

/** SQLite implementation of `ChallengeStore`. */
export class SqliteChallengeStore implements ChallengeStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<Row>(`INSERT INTO login_challenges (id, user_id, number_match, numbers, methods, client_ip, user_agent, state,
        outcome, device_id, code_failures, created_at, expires_at, answered_at) VALUES (@id, @user_id, @number_match, @numbers, @methods,
        @client_ip, @user_agent, @state, @outcome, @device_id, @code_failures, @created_at, @expires_at, @answered_at)`),
      byId: db.prepare<[string], Row>('SELECT * FROM login_challenges WHERE id = ?'),
      countSince: db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM login_challenges WHERE user_id = ? AND created_at > ?'),
      oldestSince: db.prepare<[string, number], { t: number | null }>('SELECT min(created_at) AS t FROM login_challenges WHERE user_id = ? AND created_at > ?'),
      pendingOf: db.prepare<[string, number], Row>(
        "SELECT * FROM login_challenges WHERE user_id = ? AND state = 'pending' AND expires_at > ? ORDER BY created_at, id"),
      transition: db.prepare<[string, string | null, string | null, number, string, string]>(
        'UPDATE login_challenges SET state = ?, outcome = ?, device_id = coalesce(?, device_id), answered_at = ? WHERE id = ? AND state = ?'),
      expirePending: db.prepare<[number, string]>(
        "UPDATE login_challenges SET state = 'expired', outcome = 'superseded', answered_at = ? WHERE user_id = ? AND state = 'pending'"),
      addFailure: db.prepare<[string], { code_failures: number }>(
        'UPDATE login_challenges SET code_failures = code_failures + 1 WHERE id = ? RETURNING code_failures'),
      prune: db.prepare<[number]>('DELETE FROM login_challenges WHERE created_at < ?'),
    };
  }

  insert(c: ChallengeRecord): void { this.q.insert.run({ ...c, numbers: JSON.stringify(c.numbers), methods: JSON.stringify(c.methods) }); }
  byId(id: string): ChallengeRecord | null { const r = this.q.byId.get(id); return r ? toRecord(r) : null; }
  countSince(userId: string, since: number): number { return this.q.countSince.get(userId, since)!.n; }
  oldestSince(userId: string, since: number): number | null { return this.q.oldestSince.get(userId, since)?.t ?? null; }
  pendingOf(userId: string, now: number): ChallengeRecord[] { return this.q.pendingOf.all(userId, now).map(toRecord); }
  transition(id: string, from: ChallengeState, to: ChallengeState, outcome: ChallengeOutcome | null, deviceId: string | null, at: number): boolean {
    return this.q.transition.run(to, outcome, deviceId, at, id, from).changes === 1;
  }
  expirePending(userId: string, at: number): number { return this.q.expirePending.run(at, userId).changes; }
  addCodeFailure(id: string): number { return this.q.addFailure.get(id)?.code_failures ?? 0; }
  prune(before: number): number { return this.q.prune.run(before).changes; }
}
