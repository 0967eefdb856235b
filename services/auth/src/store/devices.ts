/** `devices` table (migrations/auth/0003_devices.sql; issue 14). */
import type { Db } from '../../../shared/db/open.js';
import type { DeviceRecord, DeviceStore } from '../domain/device-ports.js';

interface Row extends Omit<DeviceRecord, 'public_jwk'> { public_jwk: string }

function toRecord(r: Row): DeviceRecord {
  return { ...r, public_jwk: JSON.parse(r.public_jwk) as DeviceRecord['public_jwk'] };
}

/** SQLite implementation of `DeviceStore`. */
export class SqliteDeviceStore implements DeviceStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<Row>(`INSERT INTO devices (id, user_id, name, public_jwk, jwk_thumbprint, totp_secret, totp_last_step,
        current_refresh_jti, state, created_at, last_seen_at, revoked_at) VALUES (@id, @user_id, @name, @public_jwk, @jwk_thumbprint,
        @totp_secret, @totp_last_step, @current_refresh_jti, @state, @created_at, @last_seen_at, @revoked_at) ON CONFLICT DO NOTHING`),
      byId: db.prepare<[string], Row>('SELECT * FROM devices WHERE id = ?'),
      byUser: db.prepare<[string], Row>('SELECT * FROM devices WHERE user_id = ? ORDER BY created_at DESC, id DESC'),
      pairedCount: db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM devices WHERE user_id = ? AND state = 'paired'"),
      rename: db.prepare<[string, string]>('UPDATE devices SET name = ? WHERE id = ?'),
      swap: db.prepare<[string, string, string]>(
        "UPDATE devices SET current_refresh_jti = ? WHERE id = ? AND current_refresh_jti = ? AND state = 'paired'"),
      revoke: db.prepare<[number, string]>(
        "UPDATE devices SET state = 'revoked', revoked_at = ?, current_refresh_jti = NULL WHERE id = ? AND state = 'paired'"),
      touch: db.prepare<[number, string]>('UPDATE devices SET last_seen_at = max(coalesce(last_seen_at, 0), ?) WHERE id = ?'),
      useStep: db.prepare<[number, string, number]>(
        "UPDATE devices SET totp_last_step = ? WHERE id = ? AND state = 'paired' AND (totp_last_step IS NULL OR totp_last_step < ?)"),
    };
  }

  insert(d: DeviceRecord): boolean { return this.q.insert.run({ ...d, public_jwk: JSON.stringify(d.public_jwk) }).changes === 1; }
  byId(id: string): DeviceRecord | null { const r = this.q.byId.get(id); return r ? toRecord(r) : null; }
  byUser(userId: string): DeviceRecord[] { return this.q.byUser.all(userId).map(toRecord); }
  pairedCount(userId: string): number { return this.q.pairedCount.get(userId)!.n; }
  rename(id: string, name: string): void { this.q.rename.run(name, id); }
  swapRefresh(id: string, expected: string, next: string): boolean { return this.q.swap.run(next, id, expected).changes === 1; }
  revoke(id: string, at: number): boolean { return this.q.revoke.run(at, id).changes === 1; }
  touch(id: string, at: number): void { this.q.touch.run(at, id); }
  useTotpStep(id: string, step: number): boolean { return this.q.useStep.run(step, id, step).changes === 1; }
}
