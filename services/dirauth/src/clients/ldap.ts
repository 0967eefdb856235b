/**
 * The corporate directory over LDAP with `ldapts` (issue 15 item 3). Each verification:
 *
 * 1. connects (LDAPS, or `ldap://` upgraded with StartTLS when DIRAUTH_LDAP_STARTTLS is set; the CA
 *    of DIRAUTH_LDAP_CA_FILE is trusted), binds as the search account (DIRAUTH_LDAP_BIND_DN), and
 *    searches DIRAUTH_LDAP_USER_BASE (subtree) with DIRAUTH_LDAP_USER_FILTER, the username escaped
 *    per RFC 4515; no entry or more than one entry is `invalid_credentials`;
 * 2. binds as the entry's DN with the password on a second connection (a wrong password is
 *    `invalid_credentials`);
 * 3. collects groups: `cn` of every entry under DIRAUTH_LDAP_GROUP_BASE whose `member` is the DN
 *    (searched as the search account), plus the first RDN of each `memberOf` value.
 *
 * Every connect and operation has DIRAUTH_LDAP_TIMEOUT_MS, and the whole verification a deadline of
 * three times that, so an outage is `unavailable` rather than a hang.
 *
 * `testBind()` (Admin → Identity "Test bind", issue 15 item 5) runs step 1's connect and search-account
 * bind and reads the user base's own entry (scope base), under the same deadline.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Client, InvalidCredentialsError, type Entry } from 'ldapts';
import type { DirectoryIdentity, LdapSettings } from '../contracts.js';
import { first, groupNameFromDn, uniqueGroups, userFilter, values, escapeFilterValue } from '../domain/filter.js';
import { DirectoryError, type Directory } from '../domain/ports.js';

const USER_ATTRIBUTES = ['uid', 'mail', 'displayName', 'cn', 'memberOf'];

/** `Directory` over an LDAP server. */
export class LdapDirectory implements Directory {
  private readonly tls: ConnectionOptions;

  /** @throws Error when DIRAUTH_LDAP_CA_FILE cannot be read. */
  constructor(private readonly s: LdapSettings) {
    this.tls = s.caFile ? { ca: readFileSync(s.caFile) } : {};
  }

  /** See the file header. @throws DirectoryError */
  async verify(username: string, password: string): Promise<DirectoryIdentity> {
    if (password.length === 0) throw new DirectoryError('invalid_credentials', 'empty password');
    return this.withDeadline((clients) => this.run(username, password, clients));
  }

  /** See the file header. @throws DirectoryError `invalid_credentials` (search account refused), `unavailable`. */
  async testBind(): Promise<void> {
    await this.withDeadline(async (clients) => {
      const c = await this.connect(clients);
      if (this.s.bindDn) {
        try {
          await c.bind(this.s.bindDn, this.s.bindPassword);
        } catch (err) {
          if (err instanceof InvalidCredentialsError) throw new DirectoryError('invalid_credentials', 'the directory refused the search account (DIRAUTH_LDAP_BIND_DN / password)');
          throw unavailable(err, 'the search account bind failed');
        }
      }
      try {
        await c.search(this.s.userBase, { scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'], timeLimit: Math.ceil(this.s.timeoutMs / 1000) });
      } catch (err) { throw unavailable(err, `reading the user base ${this.s.userBase} failed`); }
    });
  }

  /** Run `body` with the whole-operation deadline (three timeouts), unbinding every connection it opened. */
  private async withDeadline<T>(body: (clients: Client[]) => Promise<T>): Promise<T> {
    const clients: Client[] = [];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DirectoryError('unavailable', 'the directory did not answer in time')), this.s.timeoutMs * 3);
    });
    try {
      return await Promise.race([body(clients), deadline]);
    } finally {
      clearTimeout(timer);
      for (const c of clients) void c.unbind().catch(() => {});
    }
  }

  private async run(username: string, password: string, clients: Client[]): Promise<DirectoryIdentity> {
    const search = await this.connect(clients);
    if (this.s.bindDn) {
      try { await search.bind(this.s.bindDn, this.s.bindPassword); } catch (err) { throw unavailable(err, 'the search account bind failed'); }
    }
    let entries: Entry[];
    try {
      ({ searchEntries: entries } = await search.search(this.s.userBase, {
        scope: 'sub', filter: userFilter(this.s.userFilter, username), attributes: USER_ATTRIBUTES, sizeLimit: 2, timeLimit: Math.ceil(this.s.timeoutMs / 1000),
      }));
    } catch (err) { throw unavailable(err, 'the user search failed'); }
    if (entries.length !== 1) throw new DirectoryError('invalid_credentials', entries.length ? 'several entries match' : 'no such user');
    const entry = entries[0]!;

    const userConn = await this.connect(clients);
    try {
      await userConn.bind(entry.dn, password);
    } catch (err) {
      if (err instanceof InvalidCredentialsError) throw new DirectoryError('invalid_credentials', 'wrong password');
      throw unavailable(err, 'the user bind failed');
    }

    const groups = values(entry.memberOf).map(groupNameFromDn).filter((g): g is string => g !== null);
    if (this.s.groupBase) {
      try {
        const { searchEntries } = await search.search(this.s.groupBase, {
          scope: 'sub', filter: `(member=${escapeFilterValue(entry.dn)})`, attributes: ['cn'], timeLimit: Math.ceil(this.s.timeoutMs / 1000),
        });
        for (const g of searchEntries) groups.push(first(g.cn) ?? groupNameFromDn(g.dn) ?? '');
      } catch (err) { throw unavailable(err, 'the group search failed'); }
    }
    const uid = first(entry.uid) ?? username;
    const mail = first(entry.mail);
    return {
      dn: entry.dn,
      username: uid,
      email: mail ? mail.toLowerCase() : null,
      name: first(entry.displayName) ?? first(entry.cn) ?? uid,
      groups: uniqueGroups(groups),
    };
  }

  /** A new connection (StartTLS when configured), registered in `clients` for the final unbind. */
  private async connect(clients: Client[]): Promise<Client> {
    // tlsOptions only for ldaps:// (ldapts then opens TLS itself); with them on an ldap:// client its
    // StartTLS upgrade fails, so StartTLS gets them as its own argument.
    const ldaps = this.s.url.startsWith('ldaps:');
    const c = new Client({ url: this.s.url, timeout: this.s.timeoutMs, connectTimeout: this.s.timeoutMs, ...(ldaps ? { tlsOptions: this.tls } : {}) });
    clients.push(c);
    if (this.s.startTls) {
      try { await c.startTLS(this.tls); } catch (err) { throw unavailable(err, 'StartTLS failed'); }
    }
    return c;
  }
}

function unavailable(err: unknown, what: string): DirectoryError {
  if (err instanceof DirectoryError) return err;
  return new DirectoryError('unavailable', `${what}: ${(err as Error)?.message ?? String(err)}`);
}
