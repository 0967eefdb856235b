/**
 * Key administration over the supervisor channel (issue 19 item 3): the gateway's
 * `/v1/admin/secrets` routes ask the supervisor, which holds the stack's keys and pushes rotated ones
 * to every worker, to list key versions or rotate one kind. Node-free shapes only; never a key value.
 */

/** The kinds of keys an admin may list and rotate (spec "Gateway-owned admin": `secrets`). */
export const KEY_KINDS = ['principal', 'captoken', 'audit', 'receipt'] as const;
/** One of `KEY_KINDS`: X-Svc-Principal stamp keys, capability token keys, audit HMAC keys, receipt Ed25519 keys. */
export type KeyKind = typeof KEY_KINDS[number];

/** Whether `s` names a key kind. */
export function isKeyKind(s: string): s is KeyKind {
  return (KEY_KINDS as readonly string[]).includes(s);
}

/**
 * One version of a key: its label, a fingerprint (HMAC keys: `sha256:` and the first 16 hex digits of
 * the SHA-256 of the key; receipt keys: the SHA-256 of the raw 32-byte public key, 64 hex digits),
 * ISO dates, whether it signs now, and where it came from (`rotated` = the key store of
 * `/v1/admin/secrets`, `environment` = the variables or the first-start generated secrets).
 */
export interface KeyVersionInfo {
  version: string;
  fingerprint: string;
  created_at: string | null;
  retired_at: string | null;
  active: boolean;
  source: 'rotated' | 'environment' | 'generated';
}

/** The versions of one kind, newest first, and when it was last rotated (null: never through the admin). */
export interface KeyKindListing {
  kind: KeyKind;
  versions: KeyVersionInfo[];
  last_rotated_at: string | null;
}

/** A request on the key channel. */
export type KeyAdminRequest = { op: 'list' } | { op: 'rotate'; kind: KeyKind };

/** The answer: every kind's listing, or an error with a stable code and HTTP status. */
export type KeyAdminAnswer =
  | { ok: true; kinds: KeyKindListing[] }
  | { ok: false; code: string; message: string; status: number };

/** Sends a key request to the supervisor and resolves with its answer. */
export type KeyAdmin = (req: KeyAdminRequest) => Promise<KeyAdminAnswer>;

/**
 * Keys pushed by the supervisor to a worker after a rotation: the principal and capability token
 * key lists (newest first; the first signs, all verify) and, for audit, its signing key material.
 */
export interface KeyPush {
  seq: number;
  principalKeys: string[];
  capTokenKeys: string[];
}
