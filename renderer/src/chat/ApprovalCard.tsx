/** An inline approval card: the tool (and its MCP server, issue 17 item 6), its arguments, Approve / Reject. */
import { useState } from 'react';
import type { ApprovalView } from '../api/types';
import { useAction } from '../app/use-action';
import { decideApproval } from './actions';
import { ApprovalServer } from '../mcp/approval-server';

export function ApprovalCard({ approval }: { approval: ApprovalView }) {
  const [decided, setDecided] = useState<'approved' | 'rejected' | null>(approval.status === 'approved' || approval.status === 'rejected' ? approval.status : null);
  const { busy, error, run } = useAction();
  const decide = async (d: 'approve' | 'reject'): Promise<void> => {
    await run(async () => {
      await decideApproval(approval.id, d);
      setDecided(d === 'approve' ? 'approved' : 'rejected');
    });
  };
  const state = decided ?? (busy ? 'busy' : 'idle');
  return (
    <div className="card approval" role="group" aria-label={`Approval for ${approval.tool}`}>
      <div className="approval-head"><strong>{approval.tool}</strong> wants to run</div>
      <ApprovalServer approval={approval} />
      <pre>{JSON.stringify(approval.arguments, null, 2)}</pre>
      {state === 'approved' && <p className="ok small">Approved</p>}
      {state === 'rejected' && <p className="muted small">Rejected</p>}
      {(state === 'idle' || state === 'busy') && (
        <div className="row-buttons">
          <button type="button" className="primary" disabled={state === 'busy'} onClick={() => { void decide('approve'); }}>Approve</button>
          <button type="button" disabled={state === 'busy'} onClick={() => { void decide('reject'); }}>Reject</button>
        </div>
      )}
      {error && <p className="error small" role="alert">{error}</p>}
    </div>
  );
}
