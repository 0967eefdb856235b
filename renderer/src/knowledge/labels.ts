/** Words the knowledge pages share: who can read an item (spec visibility table), document states. */
import type { DocumentView, VisibilityMode } from '../api/types';

/** The visibility table in one sentence per mode. */
export const VISIBILITY_HELP: Record<VisibilityMode, string> = {
  private: 'Private: only you (and administrators) can read it.',
  shared: 'Shared: every user of the organisation, or only the members of the audiences you pick.',
  restricted: 'Restricted: only the users and audience members you name, you, and administrators.',
};

/** Who can read `d`, briefly (table cell). */
export function audienceOf(d: Pick<DocumentView, 'visibility_mode' | 'audience_tags' | 'user_grants'>): string {
  const parts = [...d.audience_tags.map((t) => `#${t}`), ...(d.user_grants.length ? [`${d.user_grants.length} user${d.user_grants.length === 1 ? '' : 's'}`] : [])];
  if (d.visibility_mode === 'shared' && parts.length === 0) return 'everyone';
  return parts.join(', ');
}

/** Size in B / KB / MB. */
export function size(n: number | null): string {
  if (n === null) return '—';
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Kind of source as a short label: the file's extension, or text / batch. */
export function kindOf(d: Pick<DocumentView, 'source_type' | 'filename' | 'metadata'>): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(d.filename ?? String((d.metadata as { filename?: unknown }).filename ?? ''))?.[1];
  return ext ? ext.toUpperCase() : d.source_type;
}
