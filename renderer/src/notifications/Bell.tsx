/**
 * The bell in the top bar (issue 13 item 1): the live unread count (`live.ts`: the stream, or
 * polling every 15 s), and the inbox as a dropdown that closes on Escape, on a click outside and
 * after following a link.
 */
import { useEffect, useRef, useState } from 'react';
import { Inbox } from './Inbox';
import { useUnreadCount } from './live';

export function NotificationBell() {
  const count = useUnreadCount() ?? 0;
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent): void => { if (e.key === 'Escape') setOpen(false); };
    const onDown = (e: MouseEvent): void => { if (box.current && !box.current.contains(e.target as Node)) setOpen(false); };
    window.addEventListener('keydown', onKey);
    window.addEventListener('mousedown', onDown);
    return () => { window.removeEventListener('keydown', onKey); window.removeEventListener('mousedown', onDown); };
  }, [open]);
  const label = count > 0 ? `Notifications, ${count} unread` : 'Notifications';
  return (
    <div className="notif-bell" ref={box}>
      <button type="button" className="bell" data-testid="notif-bell" aria-label={label} title={label} aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path fill="currentColor" d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z" /></svg>
        {count > 0 && <span className="count" data-testid="notif-count">{count > 99 ? '99+' : count}</span>}
      </button>
      {open && <div className="notif-pop" role="dialog" aria-label="Notifications"><Inbox compact onNavigate={() => setOpen(false)} /></div>}
    </div>
  );
}
