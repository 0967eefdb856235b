/**
 * Installer handoff (spec: "Public auth surface" POST /v1/auth/installer-handoff; DESIGN.md
 * "Identity" > First start).
 *
 * A one-shot UUID written to `<data dir>/installer-handoff.json` is exchanged exactly once for the
 * installer admin's tokens. Only its sha256 is stored, and spending it is a compare-and-set in the
 * database, so neither a race nor a restart can use it twice.
 */
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { TokenResponse } from '../contracts.js';
import type { Clock, HandoffFile, HandoffStore, Transactor, UserStore } from './ports.js';
import { accountDisabled, sha256Hex, type TokenService } from './tokens.js';
import type { SignInLog } from './sign-in-log.js';

/** Dependencies of `HandoffService`. */
export interface HandoffDeps {
  users: UserStore;
  handoffs: HandoffStore;
  file: HandoffFile;
  tokens: TokenService;
  tx: Transactor;
  clock: Clock;
  /** The sign-in log (issue 15 item 5): an exchanged handoff is an `installer_handoff` sign-in. */
  signIns?: Pick<SignInLog, 'record'>;
}

/** Issues and exchanges installer handoffs. */
export class HandoffService {
  constructor(private readonly deps: HandoffDeps) {}

  /** True while an unspent handoff exists. */
  async pending(): Promise<boolean> {
    return (await this.deps.handoffs.pending()) !== null;
  }

  /**
   * Replace any unspent handoff with a new one for `userId` and write the file (mode 0600).
   * The returned id is a secret: callers must not log it.
   */
  async issue(userId: string): Promise<string> {
    const id = randomUUID();
    const now = this.deps.clock();
    await this.deps.tx(async () => {
      await this.deps.handoffs.spendAll(now);
      await this.deps.handoffs.insert({ id_hash: sha256Hex(id), user_id: userId, created_at: now });
    });
    this.deps.file.write({ handoff_id: id, created_at: new Date(now).toISOString() });
    return id;
  }

  /**
   * Exchange `handoffId` for the admin's tokens, once; then delete the file.
   * @throws DomainError `handoff_invalid` (unknown or spent), `account_disabled`.
   */
  async exchange(handoffId: string, clientIp: string | null = null): Promise<TokenResponse> {
    const userId = await this.deps.tx(async () => this.deps.handoffs.spend(sha256Hex(handoffId), this.deps.clock()));
    if (userId === null) throw new DomainError('handoff_invalid', 'installer handoff id is invalid or already used');
    this.deps.file.remove();
    const user = await this.deps.users.byId(userId);
    if (!user) throw new DomainError('handoff_invalid', 'installer handoff id is invalid or already used');
    if (user.disabled) throw accountDisabled();
    const tokens = await this.deps.tokens.issue(user);
    await this.deps.signIns?.record({ user_id: user.id, email: user.email, method: 'installer_handoff', client_ip: clientIp });
    return tokens;
  }
}
