/**
 * Knowledge (spec "Knowledge"): retrieval status, upload with progress and visibility, search,
 * the documents table, audiences for administrators; `/knowledge/<id>[#chunk-<n>]` opens a document.
 */
import { useQuery } from '../api/cache';
import type { KnowledgeStatus, ProfileView } from '../api/types';
import { UploadPanel } from './UploadPanel';
import { SearchPanel } from './SearchPanel';
import { DocumentsTable } from './DocumentsTable';
import { DocumentDrawer } from './DocumentDrawer';
import { AudiencesPanel } from './AudiencesPanel';

function RetrievalStatus() {
  const s = useQuery<KnowledgeStatus>('/v1/knowledge/status');
  if (s.error) return <p className="notice error" role="alert">The knowledge service does not answer: {s.error.message}</p>;
  if (!s.data) return null;
  const d = s.data;
  if (d.dense_enabled) {
    return (
      <p className="notice info" role="status">
        Search: keyword and meaning (hybrid).{d.reembedding?.running ? ` Re-embedding ${d.reembedding.done} of ${d.reembedding.total} chunks…` : ''}
        {d.chunks_pending_vectors > 0 && !d.reembedding?.running ? ` ${d.chunks_pending_vectors} chunks wait for vectors.` : ''}
      </p>
    );
  }
  return (
    <p className="notice warn" role="status">
      Meaning-based (dense) search is off{d.dense_reason ? `: ${d.dense_reason}` : ''}. Keyword search {d.sparse_enabled || !d.dense_enabled ? 'carries on' : 'is off too'}.
    </p>
  );
}

/** `param` is the route's second segment: a document id, possibly with `#chunk-<n>`. */
export default function KnowledgePage({ param }: { param: string | null }) {
  const me = useQuery<ProfileView>('/v1/user/me');
  const isAdmin = me.data?.roles.includes('admin') ?? false;
  const [docId, hash] = (param ?? '').split('#');
  const hashChunk = /^chunk-(\d+)$/.exec(hash ?? (typeof location !== 'undefined' ? location.hash.slice(1) : ''));
  return (
    <div className="page knowledge">
      <h1>Knowledge</h1>
      <RetrievalStatus />
      <div className="knowledge-top">
        <UploadPanel />
        <SearchPanel />
      </div>
      <DocumentsTable />
      {isAdmin && <AudiencesPanel />}
      {docId && <DocumentDrawer documentId={docId} chunk={hashChunk ? Number(hashChunk[1]) : null} />}
    </div>
  );
}
