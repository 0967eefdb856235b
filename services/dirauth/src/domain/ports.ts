/** What the dirauth domain needs from the outside world (the LDAP client implements it). */
import type { DirectoryIdentity } from '../contracts.js';

/** Why a directory operation failed: the credentials, or the directory itself. */
export type DirectoryFailure = 'invalid_credentials' | 'unavailable';

/** A thrown failure of a `Directory` (the domain maps it to a `DomainError`). */
export class DirectoryError extends Error {
  constructor(readonly kind: DirectoryFailure, message: string) {
    super(message);
    this.name = 'DirectoryError';
  }
}

/** A corporate directory that verifies a username and password. */
export interface Directory {
  /**
   * Find the user by the configured filter and bind as them with `password`.
   * @throws DirectoryError `invalid_credentials` (no entry, several entries, wrong password),
   *   `unavailable` (unreachable, timed out, search account refused, TLS failure).
   */
  verify(username: string, password: string): Promise<DirectoryIdentity>;
  /**
   * Connect and bind as the search account, then read the user base's entry (issue 15 item 5).
   * @throws DirectoryError `invalid_credentials` (the search account was refused), `unavailable`
   *   (unreachable, timed out, TLS failure, user base not found).
   */
  testBind(): Promise<void>;
}
