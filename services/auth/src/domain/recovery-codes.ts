/**
 * Recovery codes (issue 14 item 4): ten single-use codes shown once, stored as sha256 of their
 * normalised form; a new set replaces any earlier one. Shown as `xxxx-xxxx-xxxx`, 12 base32
 * characters (60 bits each, RFC 4648 alphabet, lower-case); typed back case-insensitively, with or
 * without dashes and spaces.
 */
import { createHash, randomInt } from 'node:crypto';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { RECOVERY_CODE_COUNT, type RecoveryCodes, type RecoveryCodesStatus } from '../contracts.js';
import type { RecoveryCodeStore, SecurityEvents } from './device-ports.js';
import type { Clock, UserStore } from './ports.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** One new code, `xxxx-xxxx-xxxx`, from a CSPRNG. */
export function newRecoveryCode(rand: (n: number) => number = randomInt): string {
  let s = '';
  for (let i = 0; i < 12; i++) s += ALPHABET[rand(ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`;
}

/**
 * The canonical form of a typed code (lower-case, no dashes or whitespace), or null when it cannot
 * be a recovery code (not 12 base32 characters).
 */
export function normaliseRecoveryCode(typed: string): string | null {
  const s = typed.replace(/[\s-]/g, '').toLowerCase();
  return /^[a-z2-7]{12}$/.test(s) ? s : null;
}

/** sha256 hex of a normalised code (what is stored). */
export function recoveryCodeHash(normalised: string): string {
  return createHash('sha256').update(normalised, 'utf8').digest('hex');
}

/** Dependencies of `RecoveryCodeService`. */
export interface RecoveryCodeDeps {
  codes: RecoveryCodeStore;
  users: UserStore;
  events: SecurityEvents;
  clock: Clock;
}

/** Generates, counts and spends recovery codes. */
export class RecoveryCodeService {
  constructor(private readonly deps: RecoveryCodeDeps) {}

  /**
   * A new set of ten for `userId`, replacing any earlier set (audited without the codes).
   * @throws DomainError `forbidden` when `userId` is not a local account.
   */
  async generate(userId: string): Promise<RecoveryCodes> {
    if (!await this.deps.users.byId(userId)) throw new DomainError('forbidden', 'only local accounts have recovery codes');
    const codes = new Set<string>();
    while (codes.size < RECOVERY_CODE_COUNT) codes.add(newRecoveryCode());
    const list = [...codes];
    await this.deps.codes.replace(userId, list.map((c) => recoveryCodeHash(normaliseRecoveryCode(c)!)), this.deps.clock());
    this.deps.events.audit({ action: 'auth.recovery_codes.generated', user_id: userId, resource_type: 'recovery_codes', resource_id: userId, detail: { count: list.length } });
    return { codes: list };
  }

  /** Unused codes left and when the set was made (RFC 3339, or null when none). */
  async status(userId: string): Promise<RecoveryCodesStatus> {
    const s = await this.deps.codes.status(userId);
    return { remaining: s.remaining, created_at: s.created_at === null ? null : new Date(s.created_at).toISOString() };
  }

  /** Spend `typed` if it is an unused code of `userId`. @returns true when spent now. */
  async spend(userId: string, typed: string): Promise<boolean> {
    const n = normaliseRecoveryCode(typed);
    return n !== null && await this.deps.codes.use(userId, recoveryCodeHash(n), this.deps.clock());
  }
}
