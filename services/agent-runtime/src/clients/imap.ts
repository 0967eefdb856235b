/**
 * The IMAP connector's source (issue 18 item 3) over `imapflow`, messages parsed with `mailparser`.
 * An item is a message by `mailbox/UIDVALIDITY/UID` (so a new UIDVALIDITY replaces the mailbox's
 * items); messages never change in place, so a sync fetches only UIDs it has not stored. A message
 * becomes a text document (subject, sender, date, body) plus one document per attachment whose
 * type knowledge parses. Surfaces are the server's mailboxes (default selection: `config.mailboxes`,
 * else INBOX). The password comes from the tenant secret store and never appears in an error.
 */
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import type { ConnectorCheck, Surface } from '../contracts/connectors.js';
import type { ConnectorSource, FetchedItem, SourceItem, SourcePart } from '../domain/connectors/ports.js';
import { FOLDER_EXTENSIONS } from './connector-folder.js';

/** What the source needs. */
export interface ImapSettings {
  host: string;
  /** The address `host` resolved to and the outbound guard allowed; connected to instead of `host` (TLS still checks `host`). */
  address?: string;
  port: number; tls: boolean; username: string; mailboxes?: string[];
  /** One credential: the password (LOGIN / PLAIN), or an OAuth 2.0 access token (SASL XOAUTH2 / OAUTHBEARER). */
  password?: string;
  accessToken?: string;
}

/** Deadline of connecting and of one command, ms. */
const TIMEOUT_MS = 15_000;

/** A short, secret-free reason of an IMAP failure. */
export function imapReason(err: unknown): string {
  const e = err as { authenticationFailed?: boolean; code?: string; message?: string; responseText?: string };
  if (e.authenticationFailed) return 'authentication failed: the server refused the username and its password or access token';
  if (e.code === 'ECONNREFUSED') return 'connection refused by the mail server';
  if (e.code === 'ENOTFOUND') return 'the mail server host name does not resolve';
  if (e.code === 'ETIMEDOUT' || e.code === 'NoConnection') return 'the mail server did not answer in time';
  return e.responseText || e.message || 'the mail server could not be reached';
}

/** An IMAP mailbox source; connects on first use, `close` logs out. */
export class ImapSource implements ConnectorSource {
  readonly immutable = true;
  private client: ImapFlow | null = null;

  constructor(private readonly s: ImapSettings) {}

  private async connect(): Promise<ImapFlow> {
    if (this.client?.usable) return this.client;
    const c = new ImapFlow({
      host: this.s.address ?? this.s.host, ...(this.s.address && this.s.address !== this.s.host ? { servername: this.s.host } : {}), port: this.s.port, secure: this.s.tls, auth: this.s.accessToken !== undefined ? { user: this.s.username, accessToken: this.s.accessToken } : { user: this.s.username, pass: this.s.password ?? '' },
      logger: false, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: 60_000, disableAutoIdle: true,
    });
    c.on('error', () => { /* reported through the failing command */ });
    try { await c.connect(); } catch (err) {
      c.close();
      throw new Error(imapReason(err));
    }
    this.client = c;
    return c;
  }

  private defaults(selected: string[] | null): string[] { return selected ?? this.s.mailboxes ?? ['INBOX']; }

  async check(): Promise<ConnectorCheck> {
    try {
      const c = await this.connect();
      const boxes = await c.list();
      return { ok: true, detail: `signed in to ${this.s.host}:${this.s.port}; ${boxes.length} mailbox(es)` };
    } catch (err) {
      return { ok: false, error: (err as Error).message, detail: `${this.s.host}:${this.s.port}` };
    }
  }

  async surfaces(selected: string[] | null): Promise<Surface[]> {
    const c = await this.connect();
    const sel = this.defaults(selected);
    const out: Surface[] = [];
    for (const b of await c.list({ statusQuery: { messages: true } })) {
      if (b.flags?.has('\\Noselect')) continue;
      out.push({ id: b.path, name: b.name, kind: 'mailbox', selected: sel.includes(b.path), ...(typeof b.status?.messages === 'number' ? { items: b.status.messages } : {}) });
    }
    return out;
  }

  async list(selected: string[] | null): Promise<SourceItem[]> {
    const c = await this.connect();
    const out: SourceItem[] = [];
    for (const box of this.defaults(selected)) {
      const lock = await c.getMailboxLock(box, { readOnly: true });
      try {
        const mb = c.mailbox;
        if (!mb || !mb.exists) continue;
        const validity = String(mb.uidValidity);
        for await (const m of c.fetch('1:*', { uid: true, size: true })) {
          out.push({ key: `${box}/${validity}/${m.uid}`, size: m.size ?? 0, mtime_ms: null });
        }
      } finally { lock.release(); }
    }
    return out;
  }

  async fetch(item: SourceItem): Promise<FetchedItem | null> {
    const m = /^(.*)\/(\d+)\/(\d+)$/.exec(item.key);
    if (!m) return null;
    const [, box, validity, uid] = m as unknown as [string, string, string, string];
    const c = await this.connect();
    const lock = await c.getMailboxLock(box, { readOnly: true });
    let source: Buffer | undefined;
    try {
      if (String(c.mailbox && c.mailbox.uidValidity) !== validity) return null;
      const msg = await c.fetchOne(uid, { source: true }, { uid: true });
      source = msg ? msg.source : undefined;
    } finally { lock.release(); }
    if (!source) return null;
    const mail = await simpleParser(source);
    const subject = mail.subject?.trim() || '(no subject)';
    const from = mail.from?.text ?? '';
    const head = [`Subject: ${subject}`, from ? `From: ${from}` : '', mail.date ? `Date: ${mail.date.toISOString()}` : ''].filter(Boolean).join('\n');
    const parts: SourcePart[] = [{ path_or_uid: item.key, filename: `message-${uid}.txt`, title: subject, data: Buffer.from(`${head}\n\n${mail.text ?? ''}`.trim() + '\n') }];
    mail.attachments.forEach((a, i) => {
      const name = a.filename ?? `attachment-${i + 1}`;
      if (!FOLDER_EXTENSIONS.some((e) => name.toLowerCase().endsWith(e)) || !a.content.length) return;
      parts.push({ path_or_uid: `${item.key}#${i + 1}:${name}`, filename: name, title: `${subject} — ${name}`, data: a.content });
    });
    return { sha256: null, parts };
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = null;
    if (c) await c.logout().catch(() => c.close());
  }
}
