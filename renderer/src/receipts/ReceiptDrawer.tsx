/** The receipt as a side panel over the chat (opened from an answer's badge). */
import { useEffect, useRef } from 'react';
import { useApp } from '../store';
import { ReceiptView } from './ReceiptView';

export default function ReceiptDrawer({ turnId }: { turnId: string }) {
  const closed = useApp((s) => s.receiptClosed);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
    const onKey = (e: KeyboardEvent): void => { if (e.key === 'Escape') closed(); };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [closed]);
  return (
    <div className="drawer-backdrop" onClick={closed}>
      <div className="drawer" role="dialog" aria-modal="true" aria-label="Receipt" tabIndex={-1} ref={ref} onClick={(e) => e.stopPropagation()}>
        <div className="drawer-head"><h2>Receipt</h2><button type="button" className="link" onClick={closed} aria-label="Close receipt">Close</button></div>
        <ReceiptView turnId={turnId} />
      </div>
    </div>
  );
}
