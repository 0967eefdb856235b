/**
 * Directory sign-in verification (issue 15 item 3): maps the directory's failures onto dirauth's
 * error table. The username and password are never logged.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { DirectoryIdentity } from '../contracts.js';
import { DirectoryError, type Directory } from './ports.js';

/** Where unavailability is reported (a pino logger fits). */
export interface VerifyLog {
  warn(obj: object, msg: string): void;
}

/** Verifies directory credentials, or says the directory is not configured. */
export class DirectoryVerifier {
  /** @param directory null when DIRAUTH_LDAP_URL is unset. */
  constructor(private readonly directory: Directory | null, private readonly log: VerifyLog) {}

  /**
   * @returns the verified identity.
   * @throws DomainError `directory_not_configured` (404), `invalid_credentials` (401),
   *   `directory_unavailable` (503).
   */
  async verify(username: string, password: string): Promise<DirectoryIdentity> {
    if (!this.directory) throw new DomainError('directory_not_configured', 'no corporate directory is configured (DIRAUTH_LDAP_URL)');
    try {
      return await this.directory.verify(username, password);
    } catch (err) {
      if (err instanceof DirectoryError && err.kind === 'invalid_credentials') throw new DomainError('invalid_credentials', 'invalid username or password');
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'corporate directory unavailable');
      throw new DomainError('directory_unavailable', 'the corporate directory is unavailable; try again later');
    }
  }
}
