/**
 * What the host (supervisor worker entry, or a test) hands the audit service beside its config
 * (`start(cfg, runtime)`; spec "Audit signing keys"), and the key ring types it uses.
 */
import type { ServiceRuntime } from '../../../shared/runtime.js';

/** The audit keys in force: the active one signs, all of them verify. */
export interface KeyRing {
  active: { version: string; key: string };
  /** key_version label -> key text, including the active key. */
  byVersion: ReadonlyMap<string, string>;
}

/** A function returning the key ring in force now (called at every insert, seal and verification run). */
export type KeyProvider = () => KeyRing;

/**
 * Host hooks the audit service accepts: the common ones plus key providers. Keys resolve in this
 * order: `auditKeys` (a ready key ring provider, tests), else `auditKeyMaterial` (the supervisor's
 * live key material: SIGHUP rotation without a restart), else the config's keys.
 */
export interface AuditRuntime extends ServiceRuntime {
  /** Key ring in force, called at every insert, seal and verification run. Default: the config's keys. */
  auditKeys?: KeyProvider;
}
