/**
 * What an ordinary user may read of the embedder's status (issue 11 item 9, "Smaller leaks"): the
 * embedder's own `reason` names the folders it searched (the install and data directories) and its
 * `path` the model folder; load errors may name files. Users and the unauthenticated `/readyz` get
 * plain words instead ("no embedding model installed"); admins get the status as it is.
 *
 * Pure and Node-free.
 */
import type { EmbedderStatus } from './contracts.js';

/** Why dense retrieval is off, in words that name no directory or file, or null when it is on. */
export function publicDenseReason(st: Pick<EmbedderStatus, 'state'>): string | null {
  switch (st.state) {
    case 'ready': return null;
    case 'loading': return 'the embedding model is still loading';
    case 'unavailable': return 'no embedding model installed; dense retrieval is off, sparse (BM25) retrieval carries on';
    case 'failed': return 'the embedding model could not be loaded; dense retrieval is off, sparse (BM25) retrieval carries on';
  }
}

/**
 * The embedder's status for a reader: as it is when `detailed` (admins), else without the model
 * folder (`path: null`) and with `publicDenseReason` as the reason.
 */
export function embedderStatusFor(st: EmbedderStatus, detailed: boolean): EmbedderStatus {
  if (detailed) return { ...st };
  return { ...st, path: null, reason: st.reason === null ? null : publicDenseReason(st) };
}
