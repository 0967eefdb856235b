/** The receipt badge of an answer (pending -> sealed -> verified); opens the receipt. */
import { useApp } from '../store';
import { useReceiptStatus, type Status } from './status';

const LABEL: Record<Status, string> = { pending: 'Receipt pending', sealed: 'Receipt sealed', verified: 'Receipt verified', failed: 'Receipt check failed', unknown: 'Receipt' };

export function ReceiptBadge({ turnId, initial }: { turnId: string; initial: Status }) {
  const s = useReceiptStatus(turnId, initial);
  const opened = useApp((st) => st.receiptOpened);
  return (
    <button type="button" className={`badge receipt-${s}`} onClick={() => opened(turnId)} title={`Turn ${turnId}`} data-status={s}>
      <span className="dot" aria-hidden="true" />{LABEL[s]}
    </button>
  );
}
