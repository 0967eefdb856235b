/**
 * The source factory of the connectors (issue 18 item 3): a folder connector opens a
 * `FolderSource`, an IMAP one an `ImapSource` with its password or OAuth access token resolved from
 * the tenant secret store (`config.password_secret` / `config.access_token_secret`; domain/secrets.ts) at open time, never stored elsewhere. The
 * mail server's address passes the outbound guard (services/shared/http/outbound.ts: never the
 * workstation's own service ports, never link-local) and the connection goes to the checked
 * address (TLS still verifies the host name).
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import { isUrlNotAllowed, resolveAllowed, type OutboundPolicy } from '../../../shared/http/outbound.js';
import type { ConnectorRow, ConnectorSource, SourceFactory } from '../domain/connectors/ports.js';
import { FolderSource } from './connector-folder.js';
import { ImapSource } from './imap.js';

/** Resolves a tenant secret by name (null when absent). */
export type TenantSecret = (tenantId: string, name: string) => Promise<string | null>;

/** The factory over the real folder and IMAP sources. @throws DomainError `connector_config_invalid` when the IMAP secret does not exist. */
export function connectorSources(secret: TenantSecret, policy: OutboundPolicy): SourceFactory {
  return async (c: ConnectorRow): Promise<ConnectorSource> => {
    if (c.kind === 'folder') return new FolderSource(String(c.config.path));
    const token = c.config.access_token_secret !== undefined;
    const name = String(token ? c.config.access_token_secret : c.config.password_secret);
    const value = await secret(c.tenant_id, name);
    if (value === null) throw new DomainError('connector_config_invalid', `the tenant secret "${name}" does not exist`);
    const host = String(c.config.host);
    let address: string | undefined;
    try {
      address = (await resolveAllowed(host, Number(c.config.port), policy))[0]?.address;
    } catch (err) {
      if (isUrlNotAllowed(err)) throw new DomainError('connector_config_invalid', `the mail server address is not allowed: ${err.message}`);
      // A name that does not resolve is reported by the connection itself.
    }
    return new ImapSource({
      host, ...(address ? { address } : {}), port: Number(c.config.port), tls: c.config.tls === true, username: String(c.config.username), ...(token ? { accessToken: value } : { password: value }),
      ...(Array.isArray(c.config.mailboxes) ? { mailboxes: c.config.mailboxes as string[] } : {}),
    });
  };
}
