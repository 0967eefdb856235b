/**
 * Where a notification leads in the app (issue 13 item 1): the producer's `payload.link` when it is
 * an in-app path of a known section, else a link made from the kind and the payload's ids
 * (approval -> /approvals, document -> /knowledge/<id>, sandbox session -> /chat/<session>, budget
 * -> /admin/usage). Never an outside URL. Pure; unit-tested in Node.
 */

/** The notification fields the link needs. */
export interface LinkSource { kind: string; payload: Record<string, unknown> | null }

const SECTIONS = /^\/(chat|knowledge|approvals|receipts|admin|memory|notifications)(\/[A-Za-z0-9._~%:@!$&'()*+,;=-]*)*(#[A-Za-z0-9._~%-]*)?$/;

/** The in-app path `n` leads to, or null. */
export function notificationLink(n: LinkSource): string | null {
  const p = n.payload ?? {};
  const link = p.link;
  if (typeof link === 'string' && SECTIONS.test(link)) return link;
  const id = (k: string): string | null => (typeof p[k] === 'string' && p[k] ? encodeURIComponent(p[k] as string) : null);
  switch (n.kind) {
    case 'approval_waiting': return '/approvals';
    case 'document_indexed':
    case 'document_failed': return id('document_id') ? `/knowledge/${id('document_id')}` : '/knowledge';
    case 'sandbox_session_removed': return id('session_id') ? `/chat/${id('session_id')}` : null;
    case 'budget_threshold': return '/admin/usage';
    default: return null;
  }
}

/** A short "how long ago" for `iso` relative to `now` (ms). */
export function ago(iso: string, now: number = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return '';
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}
