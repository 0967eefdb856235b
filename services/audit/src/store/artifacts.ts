/**
 * `artifacts` (migrations/audit/0001_init.sql): metadata of captured bodies, keyed (tenant, turn,
 * event, kind); the bodies live in the shared object store. SQLite implementation of `ArtifactStore`.
 */
import type { Db } from '../../../shared/db/open.js';
import type { ArtifactRecord, ArtifactStore } from '../domain/ports.js';

/** SQLite implementation of `ArtifactStore`. */
export class SqliteArtifactStore implements ArtifactStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      get: db.prepare('SELECT * FROM artifacts WHERE tenant_id = ? AND turn_id = ? AND event_id = ? AND kind = ?'),
      ofTurn: db.prepare('SELECT * FROM artifacts WHERE tenant_id = ? AND turn_id = ? ORDER BY event_id, kind'),
      insert: db.prepare(`INSERT INTO artifacts (tenant_id, turn_id, event_id, kind, sha256, size, content_type, created_at)
        VALUES (@tenant_id, @turn_id, @event_id, @kind, @sha256, @size, @content_type, @created_at)`),
    };
  }

  get(tenantId: string, turnId: string, eventId: string, kind: string): ArtifactRecord | undefined {
    return this.q.get.get(tenantId, turnId, eventId, kind) as ArtifactRecord | undefined;
  }

  ofTurn(tenantId: string, turnId: string): ArtifactRecord[] {
    return this.q.ofTurn.all(tenantId, turnId) as ArtifactRecord[];
  }

  insert(a: ArtifactRecord): void {
    this.q.insert.run(a);
  }
}
