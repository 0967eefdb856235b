/**
 * The auth service's login-challenge routes as the gateway's `SecondFactorAuthority` (issue 14 item
 * 3; spec "Mobile-push second factor" steps 2 and 5): auth's own `LoginChallengeClient` (with the
 * gateway's cached service stamp, `service:gateway`), its failures turned into `DomainError`s of the
 * gateway's table. Auth's second-factor codes pass through with their statuses; anything else
 * (unreachable, 403 to a misconfigured stamp, a 5xx) is `service_unavailable`: the login fails
 * closed, and no token leaves.
 */
import { AuthCallError, LoginChallengeClient } from '../../../auth/src/client.js';
import type {
  LoginChallengeCreate, LoginChallengeCreated, LoginChallengeRequired, LoginChallengeVerdict, LoginChallengeVerify,
} from '../../../auth/src/contracts.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { GatewayErrorCode } from '../contracts.js';
import type { SecondFactorAuthority } from '../domain/ports.js';

/** Auth's codes the browser sees as they are (status from the gateway's table, which matches auth's). */
const PASSED_THROUGH: ReadonlySet<string> = new Set<GatewayErrorCode>([
  'code_invalid', 'challenge_denied', 'challenge_used', 'challenge_expired', 'challenge_throttled', 'invalid_request', 'rate_limited',
]);

/** Options of `AuthLoginChallenges`. */
export interface AuthLoginChallengesOptions {
  /** Auth base URL (`serviceUrls.auth`). */
  baseUrl: string;
  tenantId: string;
  /** `SVC_PRINCIPAL_KEYS`, newest first. */
  principalKeys: readonly string[];
  /** Whole-call timeout, ms (auth's client default when absent). */
  timeoutMs?: number;
}

/** `SecondFactorAuthority` over HTTP to the auth service. */
export class AuthLoginChallenges implements SecondFactorAuthority {
  private readonly client: LoginChallengeClient;

  constructor(opts: AuthLoginChallengesOptions) {
    this.client = new LoginChallengeClient({
      baseUrl: opts.baseUrl, service: 'gateway', tenantId: opts.tenantId, principalKeys: opts.principalKeys,
      ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
    });
  }

  /** @throws DomainError (see the module header). */
  required(userId: string): Promise<LoginChallengeRequired> {
    return mapped(this.client.required(userId));
  }

  /** @throws DomainError `challenge_throttled`, or `service_unavailable`. */
  create(input: LoginChallengeCreate): Promise<LoginChallengeCreated> {
    return mapped(this.client.create(input));
  }

  /** @throws DomainError `code_invalid`, `challenge_denied`, `challenge_used`, `challenge_expired`, or `service_unavailable`. */
  verify(input: LoginChallengeVerify): Promise<LoginChallengeVerdict> {
    return mapped(this.client.verify(input));
  }
}

async function mapped<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof AuthCallError && PASSED_THROUGH.has(err.code)) {
      throw new DomainError<GatewayErrorCode>(err.code as GatewayErrorCode, err.message, { cause: err });
    }
    throw new DomainError<GatewayErrorCode>('service_unavailable', 'the second-factor check is unavailable; try again', { cause: err });
  }
}
