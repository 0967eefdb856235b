/**
 * The "Why this answer" control of an assistant message (issue 13 item 5): a link-style button that
 * opens the context panel of the message's turn (loaded on first use) over the page.
 */
import { Suspense, lazy, useCallback, useState } from 'react';
import { createPortal } from 'react-dom';

const ContextPanel = lazy(() => import('./ContextPanel'));

export function WhyAnswer({ turnId }: { turnId: string }) {
  const [open, setOpen] = useState(false);
  const close = useCallback(() => setOpen(false), []);
  return (
    <>
      <button type="button" className="link" data-testid="why-answer" aria-haspopup="dialog" onClick={() => setOpen(true)}>Why this answer</button>
      {open && createPortal(<Suspense fallback={null}><ContextPanel turnId={turnId} onClose={close} /></Suspense>, document.body)}
    </>
  );
}
