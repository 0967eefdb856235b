/**
 * The egress shipper (issue 19 item 6): Squid access-log lines become exactly one audit row each
 * (`egress.allow` / `egress.deny` by the spec's rule, detail `proxy_access_log` with exactly the spec's
 * keys, resource `egress_destination`), across a log rotation (rename + new file), a restart (a new
 * shipper over the same store, cursor persisted with the rows), a truncation, and a partial last line
 * that is only shipped once it is complete. Real SQLite audit store, real files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainWriter } from '../../../services/audit/src/domain/chain-writer.js';
import { EgressShipper } from '../../../services/audit/src/domain/egress-shipper.js';
import { keyRingFromConfig, type KeyProvider } from '../../../services/audit/src/domain/keys.js';
import { AuditStore } from '../../../services/audit/src/store/audit-store.js';
import { SqliteEgressCursor } from '../../../services/audit/src/store/egress-cursor.js';
import { accessLogFile } from '../../../services/audit/src/store/egress-log-file.js';
import { EGRESS_DETAIL_KEYS } from '../../../services/audit/src/contracts.js';

const MIGRATIONS = join(process.cwd(), 'migrations');
const keys: KeyProvider = ((ring) => () => ring)(keyRingFromConfig({ signingKey: 'unit-egress-key-0123456789abcdef0123456789', keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null }));

function line(i: number, deny = false): string {
  return [(1_700_000_000 + i).toFixed(3), '127.0.0.1', '3128', 'CONNECT', `h${i}.example`, '443', deny ? 'TCP_DENIED' : 'TCP_TUNNEL', deny ? '403' : '200',
    '1234', 'HIER_DIRECT', '-', 'inference-router', 'strict'].join('\t');
}

interface Row { action: string; resource_type: string; resource_id: string; detail: string }

test('every line becomes exactly one row across rotation, restart, truncation and a partial line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'egress-ship-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'access.log');
  const store = AuditStore.open(dir, MIGRATIONS);
  const writer = new ChainWriter(store, keys);
  t.after(() => { writer.close(); store.close(); });
  const rows = (): Row[] => store.db.prepare("SELECT action, resource_type, resource_id, detail FROM audit_log WHERE action LIKE 'egress.%' ORDER BY seq").all() as Row[];
  const ship = (): EgressShipper => new EgressShipper(accessLogFile(log), new SqliteEgressCursor(store.db), writer, 'default');

  writeFileSync(log, `${line(1)}\n${line(2, true)}\n${line(3).slice(0, 20)}`);
  let s = ship();
  assert.equal(await s.pass(), 2, 'the partial third line waits');
  appendFileSync(log, `${line(3).slice(20)}\n`);
  assert.equal(await s.pass(), 1);
  assert.equal(await s.pass(), 0, 'nothing twice');

  // Rotation: more lines land in the old file before the rename, then the new file.
  appendFileSync(log, `${line(4)}\n`);
  renameSync(log, `${log}.1`);
  writeFileSync(log, `${line(5)}\n`);
  assert.equal(await s.pass(), 2, 'the old file drained, then the new one');

  // Restart: a new shipper over the same store continues at the persisted cursor.
  appendFileSync(log, `${line(6, true)}\n`);
  s = ship();
  assert.equal(await s.pass(), 1);
  assert.equal(await s.pass(), 0);

  // Truncation (copytruncate-style rotation): read again from the start.
  writeFileSync(log, `${line(7)}\n`);
  assert.equal(await s.pass(), 1);

  const all = rows();
  assert.deepEqual(all.map((r) => JSON.parse(r.detail).destination), [1, 2, 3, 4, 5, 6, 7].map((i) => `h${i}.example:443`));
  assert.deepEqual(all.map((r) => r.action), ['egress.allow', 'egress.deny', 'egress.allow', 'egress.allow', 'egress.allow', 'egress.deny', 'egress.allow']);
  for (const r of all) {
    assert.equal(r.resource_type, 'egress_destination');
    assert.deepEqual(Object.keys(JSON.parse(r.detail)).sort(), [...EGRESS_DETAIL_KEYS].sort());
  }
});
