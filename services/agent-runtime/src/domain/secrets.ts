/**
 * User and tenant secrets (spec "Agent runtime surfaces": `/v1/user/secrets`,
 * `/v1/admin/tenant-secrets/*`; issue 13 item 3): named values MCP servers and connectors reference
 * by name (`resolve`), kept encrypted at rest and never answered after they were written.
 *
 * Sealing: AES-256-GCM (node:crypto) under the data key of the keyring (store/secret-key.ts: the OS
 * keychain where one answers, else a 0600 key file), a random 96-bit IV per write, and as AAD the
 * JSON array `[tenant, user or null, name]`, so a ciphertext moved to another row, user or tenant
 * does not open. The keyring is opened on first use, so a runtime that never stores a secret never
 * touches the keychain. Values never go to logs, audit or error messages; names may.
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SECRET_NAME_PATTERN, SECRET_VALUE_MAX_BYTES, type SecretKeyStoreKind, type SecretPut, type SecretView } from '../contracts.js';
import { invalidField, runtimeError } from './errors.js';

/** Whose secret: a user's, or the tenant's (`userId` null). */
export interface SecretScope {
  tenantId: string;
  userId: string | null;
}

/** A stored secret (`user_id` '' = the tenant's). */
export interface SecretRow {
  tenant_id: string;
  user_id: string;
  name: string;
  description: string | null;
  key_id: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
  created_at: string;
  updated_at: string;
}

/** Secret rows (store/secrets.ts). */
export interface SecretStore {
  get(tenantId: string, userId: string, name: string): Awaitable<SecretRow | undefined>;
  /** By name. */
  list(tenantId: string, userId: string): Awaitable<SecretRow[]>;
  /** Insert or replace. */
  put(row: SecretRow): Awaitable<void>;
  /** @returns whether it existed. */
  delete(tenantId: string, userId: string, name: string): Awaitable<boolean>;
}

/** The data keys (store/secret-key.ts): the one new values are sealed with, and older ones by id. */
export interface DataKeyring {
  readonly kind: SecretKeyStoreKind;
  readonly primary: { id: string; key: Buffer };
  /** The key with this id, or null. */
  key(id: string): Buffer | null;
}

/** Dependencies of the vault. */
export interface SecretVaultDeps {
  store: SecretStore;
  /** Open the keyring (called once, on first use; again after a failure). */
  openKeyring(): Promise<DataKeyring>;
  log: { warn(obj: object, msg: string): void };
  now?: () => Date;
}

const NAME = new RegExp(SECRET_NAME_PATTERN);

/** The row key of a scope's user ('' = the tenant). */
const userKey = (s: SecretScope): string => s.userId ?? '';

/** The AAD binding a ciphertext to its tenant, user and name. */
export function secretAad(tenantId: string, userId: string | null, name: string): Buffer {
  return Buffer.from(JSON.stringify([tenantId, userId, name]), 'utf8');
}

/** Seal `value` under `key` (AES-256-GCM, random 96-bit IV). */
export function seal(key: Buffer, aad: Buffer, value: string): { iv: Buffer; tag: Buffer; ciphertext: Buffer } {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(aad);
  const ciphertext = Buffer.concat([c.update(value, 'utf8'), c.final()]);
  return { iv, tag: c.getAuthTag(), ciphertext };
}

/** Open a sealed value. @throws Error when the key, AAD or ciphertext do not match. */
export function unseal(key: Buffer, aad: Buffer, s: { iv: Buffer; tag: Buffer; ciphertext: Buffer }): string {
  const d = createDecipheriv('aes-256-gcm', key, s.iv);
  d.setAAD(aad);
  d.setAuthTag(s.tag);
  return Buffer.concat([d.update(s.ciphertext), d.final()]).toString('utf8');
}

function view(r: SecretRow): SecretView {
  return { name: r.name, description: r.description, created_at: r.created_at, updated_at: r.updated_at };
}

/**
 * Check a secret name. @throws DomainError `invalid_request` naming `params.name`.
 */
export function checkSecretName(name: string): void {
  if (!NAME.test(name)) throw invalidField('a secret name holds letters, digits, _ . - (1-64 characters)', 'params.name');
}

/** Secrets of users and tenants. */
export class SecretVault {
  private keyring: Promise<DataKeyring> | null = null;
  private readonly now: () => Date;

  constructor(private readonly d: SecretVaultDeps) {
    this.now = d.now ?? (() => new Date());
  }

  /**
   * Create or replace a secret (a description left out keeps the stored one, null clears it).
   * @returns the secret without its value, and whether it was created.
   * @throws DomainError `invalid_request` (name), `payload_too_large` (value over 16 KiB of UTF-8),
   *   `secret_store_unavailable` (the keyring cannot be opened).
   */
  async put(scope: SecretScope, name: string, body: SecretPut): Promise<{ secret: SecretView; created: boolean }> {
    checkSecretName(name);
    if (Buffer.byteLength(body.value, 'utf8') > SECRET_VALUE_MAX_BYTES) {
      throw runtimeError('payload_too_large', `a secret value holds at most ${SECRET_VALUE_MAX_BYTES} bytes`);
    }
    const ring = await this.ring();
    const sealed = seal(ring.primary.key, secretAad(scope.tenantId, scope.userId, name), body.value);
    const at = this.now().toISOString();
    const old = await this.d.store.get(scope.tenantId, userKey(scope), name);
    const row: SecretRow = {
      tenant_id: scope.tenantId, user_id: userKey(scope), name,
      description: body.description === undefined ? old?.description ?? null : body.description?.trim() || null,
      key_id: ring.primary.id, ...sealed, created_at: old?.created_at ?? at, updated_at: at,
    };
    await this.d.store.put(row);
    return { secret: view(row), created: !old };
  }

  /** The scope's secrets by name, without values. */
  async list(scope: SecretScope): Promise<SecretView[]> {
    return (await this.d.store.list(scope.tenantId, userKey(scope))).map(view);
  }

  /**
   * Delete a secret.
   * @throws DomainError `invalid_request` (name), `secret_not_found`.
   */
  async delete(scope: SecretScope, name: string): Promise<void> {
    checkSecretName(name);
    if (!await this.d.store.delete(scope.tenantId, userKey(scope), name)) throw runtimeError('secret_not_found', `no secret named ${name}`);
  }

  /**
   * `resolveSecret(tenant, user|null, name)`: the value MCP servers and connectors reference by
   * name (runtime-internal; never answered by a route): the user's secret first, then the tenant's.
   * @returns the value, or null when neither exists (or the name is not a valid one).
   * @throws DomainError `secret_store_unavailable` when the keyring cannot be opened or a stored value does not open.
   */
  async resolve(tenantId: string, userId: string | null, name: string): Promise<string | null> {
    if (!NAME.test(name)) return null;
    const row = (userId !== null ? await this.d.store.get(tenantId, userId, name) : undefined) ?? await this.d.store.get(tenantId, '', name);
    if (!row) return null;
    const ring = await this.ring();
    const key = ring.key(row.key_id);
    try {
      if (!key) throw new Error(`data key ${row.key_id} is not available`);
      return unseal(key, secretAad(row.tenant_id, row.user_id === '' ? null : row.user_id, row.name), row);
    } catch (err) {
      this.d.log.warn({ err: (err as Error).message, name: row.name, scope: row.user_id === '' ? 'tenant' : 'user' }, 'a stored secret does not open');
      throw runtimeError('secret_store_unavailable', `the secret ${row.name} cannot be opened`);
    }
  }

  /** Where the data key is kept (opens the keyring). @throws DomainError `secret_store_unavailable`. */
  async storeKind(): Promise<SecretKeyStoreKind> {
    return (await this.ring()).kind;
  }

  private async ring(): Promise<DataKeyring> {
    this.keyring ??= this.d.openKeyring().catch((err: unknown) => {
      this.keyring = null;
      this.d.log.warn({ err: (err as Error).message }, 'the secrets keyring cannot be opened');
      throw runtimeError('secret_store_unavailable', 'secrets cannot be stored or read now: the key store is unavailable');
    });
    return this.keyring;
  }
}
