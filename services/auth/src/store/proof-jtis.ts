/** `device_proof_jtis` table (migrations/auth/0003_devices.sql; issue 14): the replay cache of device proofs and answers. */
import type { Db } from '../../../shared/db/open.js';
import type { ProofJtiStore } from '../domain/device-ports.js';

/** SQLite implementation of `ProofJtiStore`. */
export class SqliteProofJtiStore implements ProofJtiStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      remember: db.prepare<[string, string, number]>('INSERT INTO device_proof_jtis (device_id, jti, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
      prune: db.prepare<[number]>('DELETE FROM device_proof_jtis WHERE expires_at < ?'),
    };
  }

  remember(deviceId: string, jti: string, expiresAt: number): boolean { return this.q.remember.run(deviceId, jti, expiresAt).changes === 1; }
  prune(before: number): number { return this.q.prune.run(before).changes; }
}
