/**
 * Key rotation in the supervisor (issue 19 item 3): answers the gateway's `/v1/admin/secrets`
 * requests on the worker channel (`key-admin`), persists rotated HMAC keys
 * (main/config/key-store.ts: they win over the environment after a restart), rotates the receipt
 * Ed25519 key in audit's key store (audit re-reads it when the file changes), and pushes new keys
 * to the workers (`keys`), which apply them without a restart.
 *
 * A principal or capability token rotation runs in two phases so no request fails on the way:
 * first every worker learns the new key as a verifier (appended last) and acknowledges, then the
 * new key moves first and signs. Old keys are never dropped: every retired key keeps verifying.
 * Rotations run one at a time. Never logs or returns a key value.
 */
import type { Worker } from 'node:worker_threads';
import type { AnyServiceConfig } from '../../services/shared/config.js';
import type { KeyAdminAnswer, KeyAdminRequest, KeyKind, KeyKindListing, KeyVersionInfo } from '../../services/shared/key-admin.js';
import { KEY_KINDS } from '../../services/shared/key-admin.js';
import type { ServiceName } from '../../services/shared/services.js';
import {
  auditMaterial, effectiveKeys, envAuditKeys, envListKeys, listHmacKeys, readKeyStore, rotateHmacKind, type HmacKind, type StoredKey,
} from '../config/key-store.js';
import { postToWorker } from './messages.js';

/** What the key manager needs of the supervisor: each service's live worker and its (mutable) config slice. */
export interface KeyTargets {
  targets(): Array<{ name: ServiceName; worker: Worker | null; cfg: AnyServiceConfig }>;
}

/** How long a push waits for every worker's acknowledgement, ms. */
const ACK_TIMEOUT_MS = 5000;

/** The supervisor's keys: listing, rotation, persistence and the push to workers. */
export class KeyManager {
  private keys: Record<HmacKind, StoredKey[]>;
  private seq = 0;
  private readonly waiting = new Map<number, { left: Set<ServiceName>; done: () => void }>();
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * @param dataDir the data directory (rotated-keys.json, the receipt key store).
   * @param initial the keys the stack started with (already merged with the store by `loadStackConfig`).
   */
  constructor(private readonly dataDir: string, initial: {
    principalKeys: readonly string[]; capTokenKeys: readonly string[];
    audit: { signingKey: string; keyVersion: string; previousSigningKey: string | null; previousKeyVersion: string | null; retiredKeys?: Array<{ version: string; key: string }> };
  }, private readonly sup: KeyTargets) {
    const store = readKeyStore(dataDir);
    const notStored = (kind: HmacKind, all: StoredKey[]): StoredKey[] => {
      const known = new Set((store[kind] ?? []).map((k) => k.key));
      return all.filter((k) => !known.has(k.key));
    };
    const auditAll: StoredKey[] = [
      ...envAuditKeys(initial.audit),
      ...(initial.audit.retiredKeys ?? []).map((r) => ({ version: r.version, key: r.key, created_at: null, retired_at: null, source: 'environment' as const })),
    ];
    this.keys = {
      principal: effectiveKeys(store, 'principal', notStored('principal', envListKeys(initial.principalKeys))),
      captoken: effectiveKeys(store, 'captoken', notStored('captoken', envListKeys(initial.capTokenKeys))),
      audit: effectiveKeys(store, 'audit', notStored('audit', auditAll)),
    };
  }

  /** Answer a `key-admin` request of the gateway. Never throws: failures answer `{ok: false}`. */
  handle(req: KeyAdminRequest): Promise<KeyAdminAnswer> {
    const run = async (): Promise<KeyAdminAnswer> => {
      try {
        if (req.op === 'rotate') {
          if (!(KEY_KINDS as readonly string[]).includes(req.kind)) return { ok: false, code: 'key_kind_unknown', message: `no key kind ${String(req.kind)}`, status: 404 };
          await this.rotate(req.kind);
        }
        return { ok: true, kinds: await this.list() };
      } catch (err) {
        return { ok: false, code: 'service_unavailable', message: `key ${req.op} failed: ${err instanceof Error ? err.message : String(err)}`, status: 503 };
      }
    };
    const p = this.queue.then(run, run);
    this.queue = p;
    return p;
  }

  /** A worker acknowledged push `seq`. */
  applied(name: ServiceName, seq: number): void {
    const w = this.waiting.get(seq);
    if (!w) return;
    w.left.delete(name);
    if (w.left.size === 0) w.done();
  }

  private async list(): Promise<KeyKindListing[]> {
    const hmac = (kind: HmacKind): KeyKindListing => {
      const versions = listHmacKeys(this.keys[kind]);
      return { kind, versions, last_rotated_at: versions.find((v) => v.source === 'rotated')?.created_at ?? null };
    };
    const { ensureReceiptKeys, receiptFingerprint } = await import('../../services/audit/src/index.js');
    const rk = ensureReceiptKeys(this.dataDir);
    const receipt: KeyVersionInfo[] = rk.map((k, i) => ({
      version: k.kid, fingerprint: receiptFingerprint(k.x), created_at: k.created_at, retired_at: k.retired_at,
      active: i === 0, source: i === rk.length - 1 ? 'generated' : 'rotated',
    }));
    return [hmac('principal'), hmac('captoken'), hmac('audit'), { kind: 'receipt', versions: receipt, last_rotated_at: rk.length > 1 ? rk[0]!.created_at : null }];
  }

  private async rotate(kind: KeyKind): Promise<void> {
    if (kind === 'receipt') {
      const { rotateReceiptKey } = await import('../../services/audit/src/index.js');
      rotateReceiptKey(this.dataDir);
      return;
    }
    const next = rotateHmacKind(this.dataDir, kind, this.keys[kind]);
    this.keys[kind] = next;
    if (kind === 'audit') {
      const material = auditMaterial(next);
      await this.push((t) => t.name === 'audit', (cfg) => { if (cfg.service === 'audit') Object.assign(cfg, material); }, material);
      return;
    }
    // Phase 1: the new key verifies everywhere; phase 2: it signs.
    const fresh = next[0]!.key;
    const others = next.slice(1).map((k) => k.key);
    const field = kind === 'principal' ? 'principalKeys' : 'capTokenKeys';
    await this.push(() => true, (cfg) => { cfg[field].splice(0, cfg[field].length, ...others, fresh); });
    await this.push(() => true, (cfg) => { cfg[field].splice(0, cfg[field].length, fresh, ...others); });
  }

  /** Update the chosen slices, post them to their running workers and wait for every acknowledgement. */
  private push(
    which: (t: { name: ServiceName }) => boolean, update: (cfg: AnyServiceConfig) => void,
    audit?: ReturnType<typeof auditMaterial>,
  ): Promise<void> {
    const seq = ++this.seq;
    const targets = this.sup.targets().filter(which);
    for (const t of targets) update(t.cfg);
    const live = targets.filter((t) => t.worker);
    if (live.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => { this.waiting.delete(seq); resolve(); }, ACK_TIMEOUT_MS);
      timer.unref();
      this.waiting.set(seq, { left: new Set(live.map((t) => t.name)), done: () => { clearTimeout(timer); this.waiting.delete(seq); resolve(); } });
      for (const t of live) {
        postToWorker(t.worker!, {
          type: 'keys', push: { seq, principalKeys: [...t.cfg.principalKeys], capTokenKeys: [...t.cfg.capTokenKeys] },
          ...(audit && t.cfg.service === 'audit' ? { audit: { ...audit, retiredKeys: [...audit.retiredKeys] } } : {}),
        });
      }
    });
  }
}
